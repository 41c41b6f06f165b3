package fsio_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/desk-dev/desk/internal/fsio"
	"github.com/desk-dev/desk/internal/vfs"
)

// BenchmarkImportDir10000 imports a host tree of 100 directories of 100 files
// of 1–8 KiB each into a fresh workspace per iteration and reports files/s.
func BenchmarkImportDir10000(b *testing.B) {
	const dirs, filesPerDir = 100, 100
	ctx := context.Background()
	src := b.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	var total int64
	for d := range dirs {
		dir := filepath.Join(src, fmt.Sprintf("d%03d", d))
		if err := os.Mkdir(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for f := range filesPerDir {
			data := make([]byte, 1024+rng.IntN(7*1024+1))
			for i := range data {
				data[i] = byte(rng.Uint32())
			}
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d", f)), data, 0o644); err != nil {
				b.Fatal(err)
			}
			total += int64(len(data))
		}
	}
	b.SetBytes(total)
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		fsys, err := vfs.Open(ctx, filepath.Join(b.TempDir(), fmt.Sprintf("ws%d.db", i)), vfs.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		sum, err := fsio.ImportDir(ctx, fsys, src, "/imported", fsio.ImportOptions{})
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if sum.Files != dirs*filesPerDir {
			b.Fatalf("imported %d files, want %d", sum.Files, dirs*filesPerDir)
		}
		if err := fsys.Close(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(dirs*filesPerDir*b.N)/b.Elapsed().Seconds(), "files/s")
}
