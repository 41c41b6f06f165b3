package vfs

import (
	"bytes"
	"context"
	"crypto/rand"
	"os"
	"testing"
)

func TestSmoke(t *testing.T) {
	ctx := context.Background()
	f, err := Open(ctx, t.TempDir()+"/ws.db", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.MkdirAll(ctx, "/a/b/c", 0o755); err != nil {
		t.Fatal(err)
	}
	data := make([]byte, 3<<20+123)
	rand.Read(data)
	if err := f.WriteFile(ctx, "/a/b/x", data, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := f.ReadFile(ctx, "/a/b/x")
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("readfile: %v %d", err, len(got))
	}
	h, err := f.OpenFile(ctx, "/a/b/x", os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	h.WriteAt([]byte("hello"), 100000)
	copy(data[100000:], "hello")
	h.Close()
	got, _ = f.ReadFile(ctx, "/a/b/x")
	if !bytes.Equal(got, data) {
		t.Fatal("mismatch after writeat")
	}
	if err := f.Symlink(ctx, "b/x", "/a/l"); err != nil {
		t.Fatal(err)
	}
	fi, err := f.Stat(ctx, "/a/l")
	if err != nil || fi.Size() != int64(len(data)) {
		t.Fatal(err, fi)
	}
	if err := f.Rename(ctx, "/a/b", "/z", 0); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Stat(ctx, "/a/l"); Errno(err) != 2 {
		t.Fatal("want ENOENT", err)
	}
	rep, err := f.Check(ctx)
	if err != nil || !rep.OK() {
		t.Fatal(err, rep.Problems)
	}
	st, _ := f.Stats(ctx)
	t.Logf("%+v", st)
	if err := f.RemoveAll(ctx, "/z"); err != nil {
		t.Fatal(err)
	}
	rep, err = f.Check(ctx)
	if err != nil || !rep.OK() {
		t.Fatal(err, rep.Problems)
	}
	st, _ = f.Stats(ctx)
	t.Logf("%+v", st)
	chs, _ := f.Changes(ctx, 0, 100)
	for _, c := range chs {
		t.Logf("%d %s %s %s", c.Seq, c.Op, c.Path, c.OldPath)
	}
}
