package bundle

// The settled numbers of an insurance snapshot (docs/DECISIONS.md#insurance-snapshot). Check holds a snapshot to them, so that verify --deep can
// tell a snapshot whose notes or trajectory disagree with its own numbers.
const (
	// SnapshotEpisodes is how many episodes a snapshot keeps: the last ones,
	// by tick, ties by id.
	SnapshotEpisodes = 50
	// SnapshotInsights is how many insights a snapshot keeps: the most
	// confident, ties by id. It is the snapshot's header.bottleneck.max_entries.
	SnapshotInsights = 20
	// EpistemicPressureFactor: a snapshot is under epistemic pressure when
	// its fitness is below this many times its senescence threshold.
	EpistemicPressureFactor = 2.0
	// StalenessPressureAccuracy: a snapshot is under staleness pressure when
	// the accuracy of its window is below this.
	StalenessPressureAccuracy = 0.5
	// LikelyStaleDecay: under epistemic pressure, an insight whose temporal
	// decay at exported_at is below this is marked likely stale.
	LikelyStaleDecay = 0.5
	// TrajectoryBucketTicks is the width of one bucket of the accuracy
	// trajectory, from the window's first tick.
	TrajectoryBucketTicks = 100
)

// Pressures a snapshot may be under.
const (
	PressureEpistemic = "epistemic" // fitness < EpistemicPressureFactor × senescence threshold
	PressureStaleness = "staleness" // window accuracy < StalenessPressureAccuracy
)

// Marks of a successor note.
const (
	NoteStructural  = "structural"   // the insight's decay class is structural: it does not age
	NoteLikelyStale = "likely_stale" // its temporal decay at exported_at is below LikelyStaleDecay
)

// SnapshotBody is the body of an insurance snapshot (KindSnapshot): what a
// living Golem saves every few hours so that, if it dies without a death
// protocol, a successor starts from something (degraded inheritance).
//
// It is not germline. It carries soma — episodes, metrics, the credit state
// — and no type reachable from Body can hold it: a snapshot is a different
// kind of bundle, never a field of a death bundle. Emotional tags stay out
// even here: a snapshot serves inheritance, and an emotional tag never
// crosses to a successor.
type SnapshotBody struct {
	// Episodes are the last SnapshotEpisodes episodes, in (tick, id)
	// order, ascending.
	Episodes []SnapshotEpisode `cbor:"episodes"`
	// Insights are the SnapshotInsights most confident insight entries that
	// are not quarantined, by confidence descending, then id ascending.
	// Score and Decay are as in a death bundle, at header.bottleneck.now.
	Insights []Entry          `cbor:"insights"`
	Playbook *Document        `cbor:"playbook,omitempty"`
	Metrics  []SnapshotMetric `cbor:"metrics"` // the latest value of each, sorted by name
	Credits  *SnapshotCredits `cbor:"credits,omitempty"`
	// Staleness is the staleness test over the epistemic autopsy's window.
	Staleness Staleness `cbor:"staleness"`
	// Fitness is the epistemic fitness (the export header's, else the last
	// fitness record's); nil when the export has neither.
	Fitness             *float64 `cbor:"fitness,omitempty"`
	SenescenceThreshold float64  `cbor:"senescence_threshold"`
	// Pressures are PressureEpistemic and PressureStaleness, those that
	// hold, in that order.
	Pressures []string `cbor:"pressures,omitempty"`
	// SuccessorNotes, under epistemic pressure only: one for each insight
	// that is structural or likely stale, in insight order.
	SuccessorNotes []SuccessorNote `cbor:"successor_notes,omitempty"`
	// Trajectory, under staleness pressure only: the window's accuracy per
	// TrajectoryBucketTicks ticks, oldest first.
	Trajectory []AccuracyBucket `cbor:"trajectory,omitempty"`
}

// SnapshotEpisode is an episode as a snapshot keeps it: everything the
// export says but its emotional tag.
type SnapshotEpisode struct {
	ID           string              `cbor:"id"`
	Tick         int64               `cbor:"tick"`
	At           string              `cbor:"at"` // RFC 3339, UTC
	Regime       string              `cbor:"regime,omitempty"`
	State        string              `cbor:"state,omitempty"`
	Summary      string              `cbor:"summary,omitempty"`
	Action       string              `cbor:"action,omitempty"`
	Outcome      string              `cbor:"outcome,omitempty"`
	PnLUSDC      *float64            `cbor:"pnl_usdc,omitempty"`
	Prediction   *SnapshotPrediction `cbor:"prediction,omitempty"`
	UsedEntryIDs []string            `cbor:"used_entry_ids,omitempty"`
}

// SnapshotPrediction is what an episode predicted. Correct is nil while
// the outcome is unknown; a prediction with neither a statement nor an
// outcome is absent.
type SnapshotPrediction struct {
	Statement string `cbor:"statement,omitempty"`
	Correct   *bool  `cbor:"correct,omitempty"`
}

// SnapshotMetric is the latest value of one strategy performance metric.
type SnapshotMetric struct {
	Name  string  `cbor:"name"`
	Value float64 `cbor:"value"`
	At    string  `cbor:"at,omitempty"` // RFC 3339, UTC
}

// SnapshotCredits is the Golem's credit state, from the export header.
type SnapshotCredits struct {
	RemainingUSDC    float64 `cbor:"remaining_usdc"`
	InitialUSDC      float64 `cbor:"initial_usdc"`
	DeathReserveUSDC float64 `cbor:"death_reserve_usdc"`
}

// Staleness is the staleness test of the epistemic autopsy's window: the
// known predictions of the episodes with WindowStartTick ≤ tick ≤
// WindowEndTick, and how many were correct.
type Staleness struct {
	WindowStartTick int64    `cbor:"window_start_tick"`
	WindowEndTick   int64    `cbor:"window_end_tick"`
	Known           int      `cbor:"known"`
	Correct         int      `cbor:"correct"`
	Accuracy        *float64 `cbor:"accuracy,omitempty"` // Correct / Known; nil when Known is 0
}

// SuccessorNote marks one insight of the snapshot for a successor.
type SuccessorNote struct {
	ID   string `cbor:"id"`   // an insight of the snapshot
	Mark string `cbor:"mark"` // NoteStructural or NoteLikelyStale
}

// AccuracyBucket is one point of the accuracy trajectory: the known
// predictions of the episodes with StartTick ≤ tick ≤ EndTick.
type AccuracyBucket struct {
	StartTick int64    `cbor:"start_tick"`
	EndTick   int64    `cbor:"end_tick"`
	Known     int      `cbor:"known"`
	Correct   int      `cbor:"correct"`
	Accuracy  *float64 `cbor:"accuracy,omitempty"` // Correct / Known; nil when Known is 0
}
