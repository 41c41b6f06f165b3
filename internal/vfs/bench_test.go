package vfs_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/vfs"
)

// Benchmarks run each scenario on the vfs and, in the same run, on a tmpfs
// directory through package os (the baseline). They report the vfs time per
// operation as usual, plus "tmpfs-ns/op" and the ratio "x-tmpfs" (vfs time /
// tmpfs time; < 1 means faster than tmpfs). Set DESK_BENCH_DIR to use another
// baseline directory (default /dev/shm, else the test temp dir).

// benchFS is the small surface the scenarios use.
type benchFS interface {
	mkdir(name string) error
	writeFile(name string, data []byte) error
	stat(name string) error
	readDir(name string) (int, error)
	remove(name string) error
	removeAll(name string) error
	create(name string) (io.WriteCloser, error)
	openRW(name string) (io.WriterAt, io.Closer, error)
	open(name string) (io.ReadCloser, error)
	// writeDir creates dir holding the given files, as fast as the store
	// allows (the vfs uses one Batch; the kernel has no such thing).
	writeDir(dir string, names []string, data [][]byte) error
}

type vfsBench struct{ f *vfs.FS }

var bctx = context.Background()

func (v vfsBench) mkdir(n string) error                    { return v.f.Mkdir(bctx, n, 0o755) }
func (v vfsBench) writeFile(n string, d []byte) error      { return v.f.WriteFile(bctx, n, d, 0o644) }
func (v vfsBench) stat(n string) error                     { _, err := v.f.Stat(bctx, n); return err }
func (v vfsBench) readDir(n string) (int, error)           { e, err := v.f.ReadDir(bctx, n); return len(e), err }
func (v vfsBench) remove(n string) error                   { return v.f.Remove(bctx, n) }
func (v vfsBench) removeAll(n string) error                { return v.f.RemoveAll(bctx, n) }
func (v vfsBench) create(n string) (io.WriteCloser, error) { return v.f.Create(bctx, n) }
func (v vfsBench) open(n string) (io.ReadCloser, error)    { return v.f.Open(bctx, n) }
func (v vfsBench) openRW(n string) (io.WriterAt, io.Closer, error) {
	h, err := v.f.OpenFile(bctx, n, os.O_RDWR, 0)
	return h, h, err
}

func (v vfsBench) writeDir(dir string, names []string, data [][]byte) error {
	return v.f.Batch(bctx, func(b *vfs.Batch) error {
		b.Mkdir(dir, 0o755)
		for i, n := range names {
			b.WriteFile(dir+"/"+n, data[i], 0o644)
		}
		return nil
	})
}

type osBench struct{ dir string }

func (o osBench) writeDir(dir string, names []string, data [][]byte) error {
	if err := o.mkdir(dir); err != nil {
		return err
	}
	for i, n := range names {
		if err := o.writeFile(dir+"/"+n, data[i]); err != nil {
			return err
		}
	}
	return nil
}

func (o osBench) p(n string) string                       { return filepath.Join(o.dir, n) }
func (o osBench) mkdir(n string) error                    { return os.Mkdir(o.p(n), 0o755) }
func (o osBench) writeFile(n string, d []byte) error      { return os.WriteFile(o.p(n), d, 0o644) }
func (o osBench) stat(n string) error                     { _, err := os.Stat(o.p(n)); return err }
func (o osBench) remove(n string) error                   { return os.Remove(o.p(n)) }
func (o osBench) removeAll(n string) error                { return os.RemoveAll(o.p(n)) }
func (o osBench) create(n string) (io.WriteCloser, error) { return os.Create(o.p(n)) }
func (o osBench) open(n string) (io.ReadCloser, error)    { return os.Open(o.p(n)) }
func (o osBench) readDir(n string) (int, error) {
	e, err := os.ReadDir(o.p(n))
	return len(e), err
}
func (o osBench) openRW(n string) (io.WriterAt, io.Closer, error) {
	h, err := os.OpenFile(o.p(n), os.O_RDWR, 0)
	return h, h, err
}

func baselineDir(b *testing.B) string {
	root := os.Getenv("DESK_BENCH_DIR")
	if root == "" {
		root = "/dev/shm"
	}
	d, err := os.MkdirTemp(root, "deskbench")
	if err != nil {
		return b.TempDir()
	}
	b.Cleanup(func() { os.RemoveAll(d) })
	return d
}

type scenario struct {
	bytes int64                                        // bytes processed per op, for MB/s
	setup func(b *testing.B, fsys benchFS, dir string) // untimed
	run   func(b *testing.B, fsys benchFS, dir string) // timed
}

// pair runs sc b.N times on the vfs (timed by the benchmark) and b.N times on
// the baseline (timed by hand), and reports both and their ratio.
func pair(b *testing.B, sc scenario, opts vfs.Options) {
	if ps, err := strconv.Atoi(os.Getenv("DESK_BENCH_PAGESIZE")); err == nil {
		opts.PageSize = ps
	}
	f, err := vfs.Open(bctx, filepath.Join(b.TempDir(), "bench.db"), opts)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	v, o := vfsBench{f}, osBench{baselineDir(b)}
	var base time.Duration
	for i := 0; i < b.N; i++ {
		dir := fmt.Sprintf("/r%d", i)
		must(b, o.mkdir(dir))
		if sc.setup != nil {
			sc.setup(b, o, dir)
		}
		t0 := time.Now()
		sc.run(b, o, dir)
		base += time.Since(t0)
		// Each iteration's tree goes before the next: b.N can reach hundreds,
		// and hundreds of 64 MiB trees kept on tmpfs filled the machine's
		// memory (24 GiB).
		must(b, o.removeAll(dir))
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		dir := fmt.Sprintf("/r%d", i)
		b.StopTimer()
		must(b, v.mkdir(dir))
		if sc.setup != nil {
			sc.setup(b, v, dir)
		}
		b.StartTimer()
		sc.run(b, v, dir)
		b.StopTimer()
		must(b, v.removeAll(dir))
		b.StartTimer()
	}
	b.StopTimer()
	if sc.bytes > 0 {
		b.SetBytes(sc.bytes)
	}
	elapsed := b.Elapsed()
	b.ReportMetric(float64(base.Nanoseconds())/float64(b.N), "tmpfs-ns/op")
	if base > 0 {
		b.ReportMetric(float64(elapsed)/float64(base), "x-tmpfs")
	}
}

func must(b testing.TB, err error) {
	if err != nil {
		b.Helper()
		b.Fatal(err)
	}
}

var kib = make([]byte, 1024)

func files1000(b *testing.B, fsys benchFS, dir string) {
	for i := 0; i < 1000; i++ {
		must(b, fsys.writeFile(fmt.Sprintf("%s/f%04d", dir, i), kib))
	}
}

func BenchmarkCreate1000(b *testing.B) {
	pair(b, scenario{run: files1000}, vfs.Options{})
}

func BenchmarkStat1000(b *testing.B) {
	pair(b, scenario{setup: files1000, run: func(b *testing.B, fsys benchFS, dir string) {
		for i := 0; i < 1000; i++ {
			must(b, fsys.stat(fmt.Sprintf("%s/f%04d", dir, i)))
		}
	}}, vfs.Options{})
}

func BenchmarkReadDir1000(b *testing.B) {
	pair(b, scenario{setup: files1000, run: func(b *testing.B, fsys benchFS, dir string) {
		n, err := fsys.readDir(dir)
		must(b, err)
		if n != 1000 {
			b.Fatalf("readdir: %d entries", n)
		}
	}}, vfs.Options{})
}

func BenchmarkRemove1000(b *testing.B) {
	pair(b, scenario{setup: files1000, run: func(b *testing.B, fsys benchFS, dir string) {
		for i := 0; i < 1000; i++ {
			must(b, fsys.remove(fmt.Sprintf("%s/f%04d", dir, i)))
		}
	}}, vfs.Options{})
}

func tree10(b *testing.B, fsys benchFS, dir string) {
	for i := 0; i < 10; i++ {
		a := fmt.Sprintf("%s/%d", dir, i)
		must(b, fsys.mkdir(a))
		for j := 0; j < 10; j++ {
			c := fmt.Sprintf("%s/%d", a, j)
			must(b, fsys.mkdir(c))
			for k := 0; k < 10; k++ {
				must(b, fsys.mkdir(fmt.Sprintf("%s/%d", c, k)))
			}
		}
	}
}

func BenchmarkMkdirTree10x10x10(b *testing.B) {
	pair(b, scenario{run: tree10}, vfs.Options{})
}

func BenchmarkWalkTree10x10x10(b *testing.B) {
	pair(b, scenario{setup: tree10, run: func(b *testing.B, fsys benchFS, dir string) {
		var walk func(d string, depth int)
		walk = func(d string, depth int) {
			n, err := fsys.readDir(d)
			must(b, err)
			if depth == 3 {
				return
			}
			for i := 0; i < n; i++ {
				c := fmt.Sprintf("%s/%d", d, i)
				must(b, fsys.stat(c))
				walk(c, depth+1)
			}
		}
		walk(dir, 0)
	}}, vfs.Options{})
}

var rand64 []byte

func init64() {
	if rand64 != nil {
		return
	}
	r := rand.NewChaCha8([32]byte{1, 2, 3})
	rand64 = make([]byte, 64<<20)
	r.Read(rand64)
}

// stamps counts the writes of rand64, so that each writes new content.
var stamps uint64

// stamp makes rand64 differ from every earlier write of it: the store keeps
// chunks by content, and rewriting identical bytes would only measure
// deduplication. It writes a counter into every 4 KiB (any chunk size of the
// store then sees new chunks), which costs microseconds.
func stamp() {
	stamps++
	for off := 0; off+8 <= len(rand64); off += 4096 {
		binary.LittleEndian.PutUint64(rand64[off:], stamps)
	}
}

func write64(b *testing.B, fsys benchFS, dir string) {
	init64()
	stamp()
	w, err := fsys.create(dir + "/big")
	must(b, err)
	for off := 0; off < len(rand64); off += 1 << 20 {
		_, err := w.Write(rand64[off : off+1<<20])
		must(b, err)
	}
	must(b, w.Close())
}

func BenchmarkWrite64MiB(b *testing.B) {
	pair(b, scenario{bytes: 64 << 20, run: write64}, vfs.Options{})
}

func BenchmarkRead64MiB(b *testing.B) {
	buf := make([]byte, 1<<20)
	pair(b, scenario{bytes: 64 << 20, setup: write64, run: func(b *testing.B, fsys benchFS, dir string) {
		r, err := fsys.open(dir + "/big")
		must(b, err)
		n, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{r}, buf)
		must(b, err)
		if n != 64<<20 {
			b.Fatalf("read %d bytes", n)
		}
		must(b, r.Close())
	}}, vfs.Options{})
}

func BenchmarkOverwrite1MiBIn64MiB(b *testing.B) {
	init64()
	pair(b, scenario{bytes: 1 << 20, setup: write64, run: func(b *testing.B, fsys benchFS, dir string) {
		w, c, err := fsys.openRW(dir + "/big")
		must(b, err)
		_, err = w.WriteAt(rand64[:1<<20], 32<<20+4096)
		must(b, err)
		must(b, c.Close())
	}}, vfs.Options{})
}

// BenchmarkImport10000 creates a tree of 10,000 files (100 directories of 100
// files, 1–8 KiB each), as an import does.
func BenchmarkImport10000(b *testing.B) {
	init64()
	pair(b, scenario{run: func(b *testing.B, fsys benchFS, dir string) {
		for d := 0; d < 100; d++ {
			sub := fmt.Sprintf("%s/d%02d", dir, d)
			must(b, fsys.mkdir(sub))
			for i := 0; i < 100; i++ {
				n := 1024 * (1 + (d*100+i)%8)
				must(b, fsys.writeFile(fmt.Sprintf("%s/f%02d", sub, i), rand64[(d*100+i)*512:][:n]))
			}
		}
	}}, vfs.Options{})
}

// BenchmarkChunkSize measures 64 MiB write and read for candidate chunk sizes
// (the evidence behind DefaultChunkSize).
func BenchmarkChunkSize(b *testing.B) {
	buf := make([]byte, 1<<20)
	for _, cs := range []int{16 << 10, 32 << 10, 64 << 10, 128 << 10, 256 << 10, 1 << 20} {
		b.Run(fmt.Sprintf("write/%dKiB", cs>>10), func(b *testing.B) {
			pair(b, scenario{bytes: 64 << 20, run: write64}, vfs.Options{ChunkSize: cs})
		})
		b.Run(fmt.Sprintf("read/%dKiB", cs>>10), func(b *testing.B) {
			pair(b, scenario{bytes: 64 << 20, setup: write64, run: func(b *testing.B, fsys benchFS, dir string) {
				r, err := fsys.open(dir + "/big")
				must(b, err)
				_, err = io.CopyBuffer(io.Discard, struct{ io.Reader }{r}, buf)
				must(b, err)
				must(b, r.Close())
			}}, vfs.Options{ChunkSize: cs})
		})
		b.Run(fmt.Sprintf("overwrite4KiB/%dKiB", cs>>10), func(b *testing.B) {
			pair(b, scenario{bytes: 4096, setup: write64, run: func(b *testing.B, fsys benchFS, dir string) {
				w, c, err := fsys.openRW(dir + "/big")
				must(b, err)
				_, err = w.WriteAt(rand64[:4096], 32<<20+4096)
				must(b, err)
				must(b, c.Close())
			}}, vfs.Options{ChunkSize: cs})
		})
	}
}

// BenchmarkCreate1000Concurrent creates 1000 files of 1 KiB from 8 goroutines:
// group commit lets concurrent callers share commits.
func BenchmarkCreate1000Concurrent(b *testing.B) {
	pair(b, scenario{run: func(b *testing.B, fsys benchFS, dir string) {
		errs := make(chan error, 8)
		for w := 0; w < 8; w++ {
			go func(w int) {
				for i := 0; i < 125; i++ {
					if err := fsys.writeFile(fmt.Sprintf("%s/f%d-%03d", dir, w, i), kib); err != nil {
						errs <- err
						return
					}
				}
				errs <- nil
			}(w)
		}
		for w := 0; w < 8; w++ {
			must(b, <-errs)
		}
	}}, vfs.Options{})
}

// BenchmarkImport10000Batched is BenchmarkImport10000 the way an importer
// writes into the vfs: one Batch (one commit) per directory of 100 files.
func BenchmarkImport10000Batched(b *testing.B) {
	init64()
	pair(b, scenario{run: func(b *testing.B, fsys benchFS, dir string) {
		names := make([]string, 100)
		data := make([][]byte, 100)
		for d := 0; d < 100; d++ {
			for i := 0; i < 100; i++ {
				names[i] = fmt.Sprintf("f%02d", i)
				data[i] = rand64[(d*100+i)*512:][:1024*(1+(d*100+i)%8)]
			}
			must(b, fsys.writeDir(fmt.Sprintf("%s/d%02d", dir, d), names, data))
		}
	}}, vfs.Options{})
}
