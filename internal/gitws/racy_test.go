package gitws

import (
	"context"
	"testing"
	"time"
)

// gitTrusts fails the test if real git (which compares whole seconds; Debian
// builds it without USE_NSEC) would take an entry of dir's index as clean by
// its stat data while the work tree holds other content. later moves the
// index's time that many seconds on first, as if it had been written then:
// an index written later must not start vouching for a stale entry.
func (s *store) gitTrusts(dir string, later time.Duration) {
	s.t.Helper()
	ctx := context.Background()
	ip := dir + "/.git/index"
	if later != 0 {
		fi, err := s.fs.Stat(ctx, ip)
		if err != nil {
			s.t.Fatal(err)
		}
		t := fi.ModTime().Add(later)
		if err := s.fs.Chtimes(ctx, ip, t, t); err != nil {
			s.t.Fatal(err)
		}
	}
	r, err := openRepo(&Env{Ctx: ctx, FS: s.fs, Dir: dir}, dir+"/.git", dir)
	if err != nil {
		s.t.Fatal(err)
	}
	idx, err := r.readIndex()
	if err != nil {
		s.t.Fatal(err)
	}
	for _, e := range idx.Entries {
		fi, err := s.fs.Lstat(ctx, dir+"/"+e.Name)
		if e.Stage != 0 || err != nil || !fi.Mode().IsRegular() {
			continue
		}
		a := fi.Attr()
		trusted := e.Size != 0 && uint32(a.Size) == e.Size && a.Mtime.Unix() == e.ModifiedAt.Unix() &&
			e.ModifiedAt.Unix() < idx.ModTime.Unix()
		if !trusted {
			continue
		}
		if h := hashBlob([]byte(s.read(dir + "/" + e.Name))); h != e.Hash {
			s.t.Errorf("%s: the index's stat data vouch for blob %s, the work tree holds %s", e.Name, e.Hash, h)
		}
	}
}

// TestIndex_StatDataNeverVouchesForOtherContent: an index entry whose blob is
// not the work tree's file carries no stat data real git would trust, after
// the commands that stage a blob other than the file (stash apply --index,
// reset to a commit with paths).
func TestIndex_StatDataNeverVouchesForOtherContent(t *testing.T) {
	s := newStore(t)
	s.ok("/w", "init", "-q", "-b", "main")
	s.write("/w/a.txt", "one\ntwo\n")
	s.ok("/w", "add", "a.txt")
	s.ok("/w", "commit", "-qm", "one")

	// a staged new file and an unstaged change to a.txt (same size either
	// way), stashed and popped with --index
	s.write("/w/a.txt", "one\nTWO\n")
	s.write("/w/n.txt", "new\n")
	s.ok("/w", "add", "n.txt")
	s.ok("/w", "stash", "-q")
	s.ok("/w", "stash", "pop", "-q", "--index")
	wantEq(t, "status after pop", s.ok("/w", "status", "--porcelain"), " M a.txt\nA  n.txt\n")
	s.gitTrusts("/w", 2*time.Second)

	// reset with paths stages the commit's blob and leaves the file
	s.ok("/w", "add", "a.txt")
	s.ok("/w", "reset", "-q", "HEAD", "--", "a.txt")
	wantEq(t, "status after reset", s.ok("/w", "status", "--porcelain"), " M a.txt\nA  n.txt\n")
	s.gitTrusts("/w", 2*time.Second)
}

// TestIndex_RacyEntriesSmudged: an entry recorded in the same second as the
// index, whose file then changed within that second (same size), is racy:
// real git compares its content. When a later command rewrites the index, the
// entry must not become trusted (git's racy-git smudging).
func TestIndex_RacyEntriesSmudged(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	s.ok("/w", "init", "-q", "-b", "main")
	sec := time.Unix(1700000000, 0)
	at := func(p string, d time.Duration) {
		t.Helper()
		if err := s.fs.Chtimes(ctx, p, sec.Add(d), sec.Add(d)); err != nil {
			t.Fatal(err)
		}
	}
	s.write("/w/a.txt", "aaaa\n")
	at("/w/a.txt", 100*time.Millisecond)
	s.ok("/w", "add", "a.txt")
	at("/w/.git/index", 200*time.Millisecond)
	s.write("/w/a.txt", "bbbb\n")
	at("/w/a.txt", 300*time.Millisecond)
	s.gitTrusts("/w", 0) // racy: real git compares the content

	s.write("/w/b.txt", "b\n")
	s.ok("/w", "add", "b.txt") // rewrites the index, a second or more later
	s.gitTrusts("/w", 0)
	wantEq(t, "status", s.ok("/w", "status", "--porcelain"), "AM a.txt\nA  b.txt\n")
}
