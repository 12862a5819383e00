package store

import "context"

// Stats counts what a store holds. cmd/bardo prints it as is, as
// bardo.check/v1's counts: its json tags are keys of that document
// (JSON.md).
type Stats struct {
	Entries          int `json:"entries"`
	Active           int `json:"active"`
	Archived         int `json:"archived"`
	Quarantined      int `json:"quarantined"`
	Embeddings       int `json:"embeddings"`
	CausalEdges      int `json:"causal_edges"`
	Documents        int `json:"documents"`
	Activities       int `json:"activities"`
	Sightings        int `json:"sightings"`
	ReviewCandidates int `json:"review_candidates"`
}

// Stats counts the store's rows, on one snapshot.
func (s *Store) Stats(ctx context.Context) (Stats, error) {
	var st Stats
	err := s.readTx(ctx, func(q querier) error {
		return q.QueryRowContext(ctx, `SELECT
			(SELECT count(*) FROM grimoire_entries),
			(SELECT count(*) FROM grimoire_entries WHERE status='active'),
			(SELECT count(*) FROM grimoire_entries WHERE status='archived'),
			(SELECT count(*) FROM grimoire_entries WHERE status='quarantined'),
			(SELECT count(*) FROM embeddings),
			(SELECT count(*) FROM causal_edges),
			(SELECT count(*) FROM documents),
			(SELECT count(*) FROM activities),
			(SELECT count(*) FROM sightings),
			(SELECT count(*) FROM review_candidates)`).Scan(&st.Entries, &st.Active, &st.Archived, &st.Quarantined,
			&st.Embeddings, &st.CausalEdges, &st.Documents, &st.Activities, &st.Sightings, &st.ReviewCandidates)
	})
	return st, err
}
