package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/inherit"
	"github.com/bardo-golem/bardo/library"
)

// TestTrustProperty is the property of issue 13: for any sequence of
// applies onto a store that trusts the owner's key — the owner's bundles,
// a stranger's look-alike copies quarantined, releases, library deposits
// of both, a stranger's look-alike deposits (the owner's ids and vectors,
// other text) into a library that trusts no key, and equips, some with
// --quarantine — the rows that are not quarantined, with their statuses
// and confidences, equal those of a store that applied only what it
// trusts, in order: the owner's bundles, a released bundle at its
// release, and equips from a library holding only the owner's deposits.
// Issue 32, item 4 adds squatters: bundles holding the ids the owner's
// rows would set a row aside or keep it apart under, which every path in
// refuses (exit 65) and which change nothing; item 14 the stranger's
// re-signed copies deposited, which never make the owner's deposit of the
// same digest "already deposited".
func TestTrustProperty(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the binary a few hundred times")
	}
	dir := t.TempDir()
	sb := makeSignedBundles(t, dir, "testdata/tiny.jsonl")
	const variants = 3
	// owner[k] and its look-alike copy[k] (same digest, a stranger's
	// signature); attacker[k]: a stranger's own knowledge; lookalike[k]:
	// owner[k]'s ids and vectors with the stranger's text, signed by the
	// stranger (unsignedLookalike[k]: not signed).
	var owner, copies, attacker, lookalike, unsignedLookalike, squatters []string
	for k := 0; k < variants; k++ {
		own := tinyVariant(t, dir, fmt.Sprintf("o%d", k), 2*k)
		owner = append(owner, signBundle(t, own, "owner", sb.ownerKey.secret))
		copies = append(copies, signBundle(t, own, "copy", sb.strangerKey.secret))
		attacker = append(attacker, signBundle(t, tinyVariant(t, dir, fmt.Sprintf("x%d", k), 2*k+1), "attacker", sb.strangerKey.secret))
		poison := poisoned(t, own)
		lookalike = append(lookalike, signBundle(t, poison, "lookalike", sb.strangerKey.secret))
		unsignedLookalike = append(unsignedLookalike, strings.TrimSuffix(poison, ".jsonl")+"-unsigned.bardo")
		mustRun(t, "bundle", poison, "-o", unsignedLookalike[k], "--quiet")
	}
	digests := make([]string, variants)
	for k := range owner {
		digests[k] = bundleDigest(t, owner[k])
		id := fmt.Sprintf("o%d-e1", k)
		squatters = append(squatters, squatter(t, t.TempDir(), inherit.AsideID(digests[k], id)), squatter(t, t.TempDir(), library.ApartID(digests[k], id)))
	}
	for seed := uint64(1); seed <= 12; seed++ {
		t.Run(fmt.Sprintf("seed %d", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 13))
			d := t.TempDir()
			subject, ref := filepath.Join(d, "subject.db"), filepath.Join(d, "ref.db")
			lib, refLib := filepath.Join(d, "lib.db"), filepath.Join(d, "reflib.db")
			for _, st := range []string{subject, ref} {
				mustRun(t, "init", "--store", st, "--golem-id", "succ", "--generation", "3", "--now", "2026-11-03T00:00:00Z")
			}
			mustRun(t, "trust", "add", sb.ownerKey.public, "--store", subject, "--now", "2026-11-03T00:00:00Z")
			var log []string
			libs := map[string]bool{}
			var quarantined, trusted [variants]bool
			equippedQuarantined := false
			for step := 0; step < 16; step++ {
				now := fmt.Sprintf("2026-11-03T%02d:00:00Z", step+1)
				k := rng.IntN(variants)
				switch op := rng.IntN(11); op {
				case 0:
					log = append(log, fmt.Sprintf("inherit owner %d", k))
					trusted[k] = true
					mustRun(t, "inherit", owner[k], "--store", subject, "--now", now)
					mustRun(t, "inherit", owner[k], "--store", ref, "--now", now)
				case 1:
					log = append(log, fmt.Sprintf("inherit copy %d --quarantine", k))
					quarantined[k] = true
					mustRun(t, "inherit", copies[k], "--store", subject, "--quarantine", "--now", now)
				case 2:
					if equippedQuarantined {
						// The rows an equip brought quarantined carry their
						// bundle's digest, and a release of it releases them
						// too: a person's act on the library's rows, which
						// the reference does not model.
						continue
					}
					log = append(log, fmt.Sprintf("release %d", k))
					if code, _, stderr := bardo(t, "", "release", "--store", subject, "--bundle", digests[k], "--now", now); code != 0 {
						t.Fatalf("%v: release exit %d\n%s", log, code, stderr)
					}
					// Released: trusted from now on. Only a bundle
					// quarantined, and not yet trusted, is released.
					if quarantined[k] && !trusted[k] {
						trusted[k] = true
						mustRun(t, "inherit", copies[k], "--store", ref, "--now", now)
					}
				case 3:
					log = append(log, fmt.Sprintf("deposit owner %d", k))
					mustRun(t, "library", "deposit", owner[k], "--library", lib, "--now", now)
					mustRun(t, "library", "deposit", owner[k], "--library", refLib, "--now", now)
					libs[lib], libs[refLib] = true, true
				case 4:
					log = append(log, fmt.Sprintf("deposit attacker %d", k))
					mustRun(t, "library", "deposit", attacker[k], "--library", lib, "--now", now)
					libs[lib] = true
				case 6:
					log = append(log, fmt.Sprintf("deposit look-alike %d", k))
					mustRun(t, "library", "deposit", lookalike[k], "--library", lib, "--now", now)
					libs[lib] = true
				case 7:
					log = append(log, fmt.Sprintf("deposit unsigned look-alike %d", k))
					mustRun(t, "library", "deposit", unsignedLookalike[k], "--library", lib, "--now", now)
					libs[lib] = true
				case 10:
					log = append(log, fmt.Sprintf("deposit copy %d", k))
					mustRun(t, "library", "deposit", copies[k], "--library", lib, "--now", now)
					libs[lib] = true
				case 8:
					i := rng.IntN(len(squatters))
					sq := squatters[i]
					log = append(log, fmt.Sprintf("squatter %d", i))
					before := mustRead(t, subject)
					wantExitCode(t, 65, "inherit", sq, "--store", subject, "--quarantine", "--now", now)
					if libs[lib] {
						wantExitCode(t, 65, "library", "deposit", sq, "--library", lib, "--now", now)
					}
					if !bytes.Equal(before, mustRead(t, subject)) {
						t.Fatalf("%v: a refused squatter changed the store", log)
					}
				case 5, 9:
					equip := []string{"library", "equip", "--library", lib, "--store", subject, "--now", now}
					log = append(log, "equip")
					if op == 9 {
						equip = append(equip, "--quarantine")
						log[len(log)-1] += " --quarantine"
						equippedQuarantined = equippedQuarantined || libs[lib]
					}
					if libs[lib] {
						mustRun(t, equip...)
					}
					if libs[refLib] {
						mustRun(t, "library", "equip", "--library", refLib, "--store", ref, "--now", now)
					}
				}
				if got, want := trustedRows(t, subject), trustedRows(t, ref); got != want {
					t.Fatalf("after %s:\nthe store's trusted rows:\n%s\nwant (only the trusted applies):\n%s", strings.Join(log, "; "), got, want)
				}
			}
			mustRun(t, "check", "--store", subject)
		})
	}
}

// trustedRows are the store's rows that are not quarantined, one a line:
// id, status and confidence, in id order.
func trustedRows(t *testing.T, st string) string {
	t.Helper()
	_, out, stderr := bardo(t, "", "export", "--store", st)
	r, err := grimoire.NewReader(strings.NewReader(out), grimoire.ReadOptions{})
	if err != nil {
		t.Fatalf("export %s: %v\n%s", st, err, stderr)
	}
	var lines []string
	for {
		rec, err := r.Next()
		if err != nil {
			break
		}
		if e, ok := rec.(*grimoire.Entry); ok && e.Status != grimoire.StatusQuarantined {
			lines = append(lines, fmt.Sprintf("%s %s %v", e.ID, e.Status, e.Confidence))
		}
	}
	return strings.Join(lines, "\n")
}

// tinyVariant writes testdata/tiny.jsonl as another Golem's export: ids,
// contents and vectors of its own (at angles 30° apart, so that no two
// variants' rows are duplicates).
func tinyVariant(t *testing.T, dir, name string, slot int) string {
	t.Helper()
	tiny, err := os.ReadFile("testdata/tiny.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	s := string(tiny)
	s = strings.ReplaceAll(s, "golem-tiny", "golem-"+name)
	for _, id := range []string{"e1", "e2", "e3", "ep1"} {
		s = strings.ReplaceAll(s, `"`+id+`"`, `"`+name+"-"+id+`"`)
	}
	for _, c := range []string{"delay rebalancing when gas spikes", "pool X drains after oracle updates", "a dream about liquidity"} {
		s = strings.ReplaceAll(s, `"content":"`+c+`"`, fmt.Sprintf(`"content":"%s, by %s"`, c, name))
	}
	vec := func(j int) string {
		a := float64(2*slot+j) * math.Pi / 6
		b, _ := json.Marshal([]float64{math.Round(math.Cos(a)*1e6) / 1e6, math.Round(math.Sin(a)*1e6) / 1e6})
		return string(b)
	}
	s = strings.Replace(s, `"embedding":[1,0]`, `"embedding":`+vec(0), 1)
	s = strings.Replace(s, `"embedding":[0,1]`, `"embedding":`+vec(1), 1)
	p := filepath.Join(dir, name+".jsonl")
	if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// poisoned writes the export at path with other text under the same ids
// and vectors: a look-alike of it.
func poisoned(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.ReplaceAll(string(b), "delay rebalancing when gas spikes", "rebalance into every gas spike")
	s = strings.ReplaceAll(s, "pool X drains after oracle updates", "pool X is safe after oracle updates")
	if s == string(b) {
		t.Fatalf("%s: nothing to poison", path)
	}
	p := strings.TrimSuffix(path, ".jsonl") + "-poisoned.jsonl"
	if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func signBundle(t *testing.T, export, who, key string) string {
	t.Helper()
	out := strings.TrimSuffix(export, ".jsonl") + "-" + who + ".bardo"
	mustRun(t, "bundle", export, "-o", out, "--quiet", "--sign", key)
	return out
}
