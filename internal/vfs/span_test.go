package vfs_test

import (
	"context"
	"slices"
	"testing"

	"github.com/desk-dev/desk/internal/vfs"
)

// TestChangeSpan: the changes made with a span's context are collected with
// their journal numbers and paths; another context's are not.
func TestChangeSpan(t *testing.T) {
	f := openStore(t, vfs.Options{})
	ctx := context.Background()
	if err := f.Mkdir(ctx, "/d", 0o755); err != nil {
		t.Fatal(err)
	}
	var sp vfs.ChangeSpan
	sctx := vfs.WithChangeSpan(ctx, &sp)
	if err := f.WriteFile(sctx, "/d/a", []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := f.WriteFile(ctx, "/d/other", []byte("y"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := f.Rename(sctx, "/d/a", "/d/b", 0); err != nil {
		t.Fatal(err)
	}
	chs, err := f.Changes(ctx, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	var want []uint64
	for _, c := range chs {
		if c.Path == "/d/a" || c.Path == "/d/b" {
			want = append(want, c.Seq)
		}
	}
	var got []uint64
	for _, r := range sp.Ranges() {
		for s := r[0]; s <= r[1]; s++ {
			got = append(got, s)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("span %v, the journal's changes of the span's paths %v (%+v)", got, want, chs)
	}
	paths, trunc := sp.Paths()
	slices.Sort(paths)
	if !slices.Equal(paths, []string{"/d/a", "/d/b"}) || trunc {
		t.Fatalf("paths %q %v", paths, trunc)
	}
}
