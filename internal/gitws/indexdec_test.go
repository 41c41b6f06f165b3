package gitws

import (
	"bytes"
	"crypto/sha1"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// goGitDecode is the reference: go-git's own decoder.
func goGitDecode(data []byte) (*index.Index, error) {
	idx := &index.Index{}
	err := index.NewDecoder(bytes.NewReader(data)).Decode(idx)
	return idx, err
}

// TestDecodeIndexMatchesGoGit decodes indexes the real git wrote (version
// 2 with the cache-tree extension, version 3 with intent-to-add, conflict
// stages, version 4) and go-git's encoder wrote (a name longer than 4095
// bytes, which the 12-bit length cannot hold) and checks that every entry
// equals go-git's decoding, or that the fast path declines.
func TestDecodeIndexMatchesGoGit(t *testing.T) {
	dir := t.TempDir()
	if err := hostGit(dir, nil, "init", "-q", "-b", "main"); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 300; i++ {
		p := filepath.Join(dir, fmt.Sprintf("d%d/f%03d.txt", i%7, i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(fmt.Sprint(i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	steps := [][]string{
		{"add", "-A"},
		{"commit", "-qm", "one"}, // writes the cache tree (TREE)
	}
	check := func(what string, wantFast bool) {
		t.Helper()
		data, err := os.ReadFile(filepath.Join(dir, ".git/index"))
		if err != nil {
			t.Fatal(err)
		}
		got, ok, err := decodeIndex(data)
		if err != nil {
			t.Fatalf("%s: decodeIndex: %v", what, err)
		}
		if ok != wantFast {
			t.Fatalf("%s: fast path %v, want %v", what, ok, wantFast)
		}
		if !ok {
			return
		}
		want, err := goGitDecode(data)
		if err != nil {
			t.Fatalf("%s: go-git: %v", what, err)
		}
		if got.Version != want.Version || len(got.Entries) != len(want.Entries) {
			t.Fatalf("%s: version %d, %d entries; go-git %d, %d", what, got.Version, len(got.Entries), want.Version, len(want.Entries))
		}
		for i := range want.Entries {
			if !reflect.DeepEqual(got.Entries[i], want.Entries[i]) {
				t.Fatalf("%s: entry %d:\n got %+v\nwant %+v", what, i, got.Entries[i], want.Entries[i])
			}
		}
	}
	for _, s := range steps {
		if err := hostGit(dir, nil, s...); err != nil {
			t.Fatal(err)
		}
	}
	check("v2 with TREE", true)
	os.WriteFile(filepath.Join(dir, "new.txt"), []byte("n"), 0o644)
	if err := hostGit(dir, nil, "add", "-N", "new.txt"); err != nil {
		t.Fatal(err)
	}
	check("v3 intent-to-add", true)
	// conflict stages
	for _, s := range [][]string{
		{"reset", "-q", "--hard"}, {"checkout", "-qb", "side"},
		{"-c", "core.quotepath=off", "commit", "-qam", "x", "--allow-empty"},
	} {
		if err := hostGit(dir, nil, s...); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(dir, "d0/f000.txt"), []byte("side"), 0o644)
	hostGit(dir, nil, "commit", "-qam", "side")
	hostGit(dir, nil, "checkout", "-q", "main")
	os.WriteFile(filepath.Join(dir, "d0/f000.txt"), []byte("main"), 0o644)
	hostGit(dir, nil, "commit", "-qam", "main")
	if err := hostGit(dir, nil, "merge", "-q", "side"); err == nil {
		t.Fatal("the merge should conflict")
	}
	check("conflict stages", true)
	hostGit(dir, nil, "merge", "--abort")
	if err := hostGit(dir, nil, "update-index", "--index-version", "4"); err != nil {
		t.Fatal(err)
	}
	check("v4", false)

	long := &index.Index{Version: 2}
	for i, n := range []int{1, 7, 8, 4094, 4095, 4096, 5000} {
		e := long.Add(fmt.Sprintf("%d", i) + strings.Repeat("n", n))
		e.Mode = 0o100644
		e.Size = uint32(n)
	}
	var buf bytes.Buffer
	if err := index.NewEncoder(&buf).Encode(long); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".git/index"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	check("long names", true)
}

// TestDecodeIndexBadInput feeds truncated and corrupted indexes (with a
// valid checksum, so the entries' parsing is what is tested): each is an
// error or a decline, never a panic, and never entries go-git would not
// decode.
func TestDecodeIndexBadInput(t *testing.T) {
	s := newStore(t)
	s.ok("/w", "init", "-q")
	for i := 0; i < 20; i++ {
		s.write(fmt.Sprintf("/w/f%02d.txt", i), "x\n")
	}
	s.ok("/w", "add", "-A")
	good := []byte(s.read("/w/.git/index"))
	if _, ok, err := decodeIndex(good); !ok || err != nil {
		t.Fatalf("own index: ok %v err %v", ok, err)
	}
	resum := func(b []byte) []byte {
		b = append([]byte(nil), b...)
		sum := sha1.Sum(b[:len(b)-20])
		copy(b[len(b)-20:], sum[:])
		return b
	}
	bad := good[:len(good)-1]
	if _, _, err := decodeIndex(append(append([]byte(nil), good[:len(good)-20]...), bytes.Repeat([]byte{1}, 20)...)); err == nil {
		t.Error("a wrong checksum was accepted")
	}
	_ = bad
	for n := 0; n < len(good); n++ {
		cut := resum(append(append([]byte(nil), good[:n]...), make([]byte, 20)...))
		if n < 12 {
			cut = good[:n]
		}
		idx, ok, err := decodeIndex(cut)
		if err == nil && ok {
			if _, gerr := goGitDecode(cut); gerr != nil {
				t.Errorf("truncated at %d: decoded %d entries, go-git: %v", n, len(idx.Entries), gerr)
			}
		}
	}
	for i := 12; i < len(good)-20; i++ {
		for _, v := range []byte{0, 0xff, 0x41} {
			b := append([]byte(nil), good...)
			b[i] = v
			b = resum(b)
			idx, ok, err := decodeIndex(b)
			if err == nil && ok {
				if want, gerr := goGitDecode(b); gerr != nil {
					t.Errorf("byte %d = %#x: decoded %d entries, go-git: %v", i, v, len(idx.Entries), gerr)
				} else if !reflect.DeepEqual(idx.Entries, want.Entries) {
					t.Errorf("byte %d = %#x: entries differ from go-git's", i, v)
				}
			}
		}
	}
}
