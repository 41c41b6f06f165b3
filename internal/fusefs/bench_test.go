package fusefs_test

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/desk-dev/desk/internal/fusefs"
	"github.com/desk-dev/desk/internal/vfs"
)

// The benchmarks run each scenario on the mount ("fuse"), on tmpfs
// (/dev/shm), on the disk the tests' temporary directories live on
// ("disk") and, where installed (make bench-setup), on bindfs over tmpfs (a
// plain FUSE passthrough), in the same run, so their ratios can be read off
// directly:
//
//	go test ./internal/fusefs/ -run '^$' -bench . -benchtime 5x

// forEachFS runs fn as a sub-benchmark on every filesystem, with root an
// empty directory on it.
func forEachFS(b *testing.B, fn func(b *testing.B, root string)) {
	b.Run("fuse", func(b *testing.B) {
		e := newEnv(b, vfs.Options{}, fusefs.Options{})
		fn(b, e.mnt)
	})
	b.Run("tmpfs", func(b *testing.B) {
		dir, err := os.MkdirTemp("/dev/shm", "fusefs-bench")
		if err != nil {
			b.Skipf("no tmpfs at /dev/shm: %v", err)
		}
		b.Cleanup(func() { os.RemoveAll(dir) })
		fn(b, dir)
	})
	b.Run("disk", func(b *testing.B) { fn(b, b.TempDir()) })
	b.Run("bindfs", func(b *testing.B) { fn(b, bindfsDir(b)) })
}

// bindfsDir mounts bindfs (a plain FUSE passthrough, the comparison for
// what FUSE itself costs) over a new directory on tmpfs and returns its
// mount point; the benchmark is skipped without bindfs (make bench-setup
// installs it).
func bindfsDir(b *testing.B) string {
	bin, err := exec.LookPath("bindfs")
	if err != nil {
		b.Skip("no bindfs (make bench-setup installs it)")
	}
	src, err := os.MkdirTemp("/dev/shm", "fusefs-bench-bindfs")
	if err != nil {
		b.Skipf("no tmpfs at /dev/shm: %v", err)
	}
	b.Cleanup(func() { os.RemoveAll(src) })
	mnt := b.TempDir()
	if out, err := exec.Command(bin, "--no-allow-other", src, mnt).CombinedOutput(); err != nil {
		b.Fatalf("bindfs: %v\n%s", err, out)
	}
	b.Cleanup(func() {
		if err := unix.Unmount(mnt, 0); err != nil {
			unix.Unmount(mnt, unix.MNT_DETACH)
		}
	})
	return mnt
}

// dbenchThroughput is dbench's "Throughput 123.45 MB/sec" line.
var dbenchThroughput = regexp.MustCompile(`Throughput ([0-9.]+) MB/sec`)

// BenchmarkDbench runs dbench (the NetBench file server load, its
// client.txt) with 2 clients for 10 s per iteration and reports its
// throughput as MB/s; skipped without dbench (make bench-setup). Run it with
// -benchtime 1x.
func BenchmarkDbench(b *testing.B) {
	bin, err := exec.LookPath("dbench")
	if err != nil {
		b.Skip("no dbench (make bench-setup installs it)")
	}
	forEachFS(b, func(b *testing.B, root string) {
		var sum float64
		n := 0
		for b.Loop() {
			out, err := exec.Command(bin, "-D", root, "-t", "10", "2").CombinedOutput()
			if err != nil {
				b.Fatalf("dbench: %v\n%s", err, out)
			}
			m := dbenchThroughput.FindSubmatch(out)
			if m == nil {
				b.Fatalf("dbench printed no throughput:\n%s", out)
			}
			v, err := strconv.ParseFloat(string(m[1]), 64)
			bmust(b, err)
			sum += v
			n++
		}
		b.ReportMetric(sum/float64(n), "MB/s")
	})
}

func bmust(b *testing.B, err error) {
	b.Helper()
	if err != nil {
		b.Fatal(err)
	}
}

// makeFiles creates n empty files in dir.
func makeFiles(b *testing.B, dir string, n int) {
	bmust(b, os.MkdirAll(dir, 0o755))
	for j := range n {
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("f%04d", j)))
		bmust(b, err)
		bmust(b, f.Close())
	}
}

// BenchmarkCreate1000 creates 1000 empty files in a new directory.
func BenchmarkCreate1000(b *testing.B) {
	forEachFS(b, func(b *testing.B, root string) {
		for i := 0; b.Loop(); i++ {
			makeFiles(b, filepath.Join(root, fmt.Sprint(i)), 1000)
		}
	})
}

// BenchmarkStat1000 stats 1000 files (warm caches).
func BenchmarkStat1000(b *testing.B) {
	forEachFS(b, func(b *testing.B, root string) {
		makeFiles(b, root, 1000)
		for b.Loop() {
			for j := range 1000 {
				var st unix.Stat_t
				bmust(b, unix.Lstat(filepath.Join(root, fmt.Sprintf("f%04d", j)), &st))
			}
		}
	})
}

// BenchmarkLookupMissing stats 1000 names that do not exist, new ones each
// iteration (so no negative entry the kernel cached answers): a LOOKUP per
// name that the server answers without the store's disk (desk: a cache
// lookup, about 2 µs; bindfs: an lstat on tmpfs), so the time is nearly all
// the round trip, FUSE's transport and the server's request loop.
func BenchmarkLookupMissing(b *testing.B) {
	forEachFS(b, func(b *testing.B, root string) {
		var st unix.Stat_t
		for i := 0; b.Loop(); i++ {
			for j := range 1000 {
				if err := unix.Lstat(filepath.Join(root, fmt.Sprintf("m%d-%d", i, j)), &st); err != unix.ENOENT {
					b.Fatalf("lstat of a missing name: %v", err)
				}
			}
		}
	})
}

// BenchmarkRemove1000 removes 1000 files (creating them is not timed).
func BenchmarkRemove1000(b *testing.B) {
	forEachFS(b, func(b *testing.B, root string) {
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			dir := filepath.Join(root, fmt.Sprint(i))
			makeFiles(b, dir, 1000)
			b.StartTimer()
			for j := range 1000 {
				bmust(b, os.Remove(filepath.Join(dir, fmt.Sprintf("f%04d", j))))
			}
		}
	})
}

// mkTree makes a 10×10×10 tree of directories under root; with files, one
// file in each of the 1000 leaves.
func mkTree(b *testing.B, root string, files bool) {
	bmust(b, os.Mkdir(root, 0o755))
	for x := range 10 {
		px := filepath.Join(root, fmt.Sprint(x))
		bmust(b, os.Mkdir(px, 0o755))
		for y := range 10 {
			py := filepath.Join(px, fmt.Sprint(y))
			bmust(b, os.Mkdir(py, 0o755))
			for z := range 10 {
				pz := filepath.Join(py, fmt.Sprint(z))
				bmust(b, os.Mkdir(pz, 0o755))
				if files {
					bmust(b, os.WriteFile(filepath.Join(pz, "f"), []byte("x"), 0o644))
				}
			}
		}
	}
}

// BenchmarkMkdirTree makes a 10×10×10 tree (1110 directories).
func BenchmarkMkdirTree(b *testing.B) {
	forEachFS(b, func(b *testing.B, root string) {
		for i := 0; b.Loop(); i++ {
			mkTree(b, filepath.Join(root, fmt.Sprint(i)), false)
		}
	})
}

// BenchmarkWalk walks the 10×10×10 tree with a file in each leaf, with an
// lstat of every entry (as find -ls).
func BenchmarkWalk(b *testing.B) {
	forEachFS(b, func(b *testing.B, root string) {
		tree := filepath.Join(root, "t")
		mkTree(b, tree, true)
		for b.Loop() {
			n := 0
			err := filepath.WalkDir(tree, func(p string, d fs.DirEntry, err error) error {
				if err != nil {
					return err
				}
				if _, err := d.Info(); err != nil {
					return err
				}
				n++
				return nil
			})
			bmust(b, err)
			if n != 2111 {
				b.Fatalf("walked %d entries", n)
			}
		}
	})
}

const bigSize = 64 << 20

// bigData is 64 MiB of random bytes (random so that nothing deduplicates).
var bigData = func() []byte {
	p := make([]byte, bigSize)
	rand.Read(p)
	return p
}()

// stamps counts the writes of bigData, so that each writes new content.
var stamps uint64

// writeBig writes bigData to p in 1 MiB writes and closes it (fsync
// excluded, as for the other filesystems). It first writes a counter into
// every 4 KiB of bigData: the store keeps chunks by content, and writing the
// same bytes again would only measure deduplication.
func writeBig(b *testing.B, p string) {
	stamps++
	for off := 0; off+8 <= len(bigData); off += 4096 {
		binary.LittleEndian.PutUint64(bigData[off:], stamps)
	}
	f, err := os.Create(p)
	bmust(b, err)
	for off := 0; off < bigSize; off += 1 << 20 {
		_, err := f.Write(bigData[off : off+1<<20])
		bmust(b, err)
	}
	bmust(b, f.Close())
}

// BenchmarkWrite64MiB writes a new 64 MiB file.
func BenchmarkWrite64MiB(b *testing.B) {
	forEachFS(b, func(b *testing.B, root string) {
		b.SetBytes(bigSize)
		for i := 0; b.Loop(); i++ {
			p := filepath.Join(root, fmt.Sprint(i))
			writeBig(b, p)
			// Each file goes before the next (untimed): kept, b.N files of
			// 64 MiB would fill tmpfs, which is memory.
			b.StopTimer()
			bmust(b, os.Remove(p))
			b.StartTimer()
		}
	})
}

// BenchmarkRead64MiB reads a 64 MiB file; "cold" first drops the file's
// pages from the kernel's cache (for the mount, every byte then comes from
// the store; tmpfs has no other copy, so it stays warm).
func BenchmarkRead64MiB(b *testing.B) {
	for _, cold := range []bool{true, false} {
		name := "warm"
		if cold {
			name = "cold"
		}
		b.Run(name, func(b *testing.B) {
			forEachFS(b, func(b *testing.B, root string) {
				p := filepath.Join(root, "big")
				writeBig(b, p)
				buf := make([]byte, 1<<20)
				b.SetBytes(bigSize)
				for b.Loop() {
					f, err := os.Open(p)
					bmust(b, err)
					if cold {
						bmust(b, unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED))
					}
					n, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{f}, buf)
					bmust(b, err)
					if n != bigSize {
						b.Fatalf("read %d bytes", n)
					}
					bmust(b, f.Close())
				}
			})
		})
	}
}
