package api_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/desk-dev/desk/client"
)

// BenchmarkBandwidth measures one large file written (PUT, durable when
// answered) and read back (GET) through the API, over loopback to a server in
// a second process, for 64 MiB and 1 GiB of random data (incompressible, no
// duplicate chunks). The data is generated in memory before the timer starts
// (a client sends a file it has, at the speed of memory, not of a random
// generator sharing the two cores with the server). In the same run it
// writes the same bytes from memory to a file in the data directory's
// filesystem with fsync (dd conv=fsync), and reads them back from the page
// cache (the baselines: disk-write-MB/s, cache-read-MB/s). After the PUTs it
// reports the workspace's WAL size (wal-MiB, at the end of the run).
//
// With DESK_API_BENCH_CPUPROFILE=file the server process writes its CPU
// profile there (for the whole run, on exit).
func BenchmarkBandwidth(b *testing.B) {
	dir := b.TempDir()
	_, c := childServer(b, dir, "bw")
	for _, size := range []int64{64 << 20, 1 << 30} {
		name := fmt.Sprintf("%dMiB", size>>20)
		data := make([]byte, size)
		(&randomReader{n: size, seed: uint64(size)}).Read(data)
		b.Run("put/"+name, func(b *testing.B) {
			b.SetBytes(size)
			var base time.Duration
			for i := 0; b.Loop(); i++ {
				// New content each round (the round's number in every
				// 4 KiB): the same bytes again would deduplicate.
				for off := 0; off < len(data); off += 4096 {
					binary.LittleEndian.PutUint64(data[off:], uint64(i))
				}
				if _, err := c.WriteFile(bg, "bw", "big", bytes.NewReader(data), client.WriteOptions{}); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				base += writeSynced(b, filepath.Join(dir, "baseline"), bytes.NewReader(data))
				b.StartTimer()
			}
			b.ReportMetric(float64(size)*float64(b.N)/base.Seconds()/1e6, "disk-write-MB/s")
			if fi, err := os.Stat(filepath.Join(dir, "workspaces", "bw.db-wal")); err == nil {
				b.ReportMetric(float64(fi.Size())/(1<<20), "wal-MiB")
			}
		})
		b.Run("get/"+name, func(b *testing.B) {
			b.SetBytes(size)
			buf := make([]byte, 1<<20)
			var base time.Duration
			for b.Loop() {
				rc, err := c.Open(bg, "bw", "big")
				if err != nil {
					b.Fatal(err)
				}
				n, err := io.CopyBuffer(io.Discard, rc, buf)
				rc.Close()
				if err != nil || n != size {
					b.Fatalf("read %d bytes: %v", n, err)
				}
				b.StopTimer()
				t0 := time.Now()
				f, err := os.Open(filepath.Join(dir, "baseline"))
				if err != nil {
					b.Fatal(err)
				}
				io.CopyBuffer(io.Discard, struct{ io.Reader }{f}, buf)
				f.Close()
				base += time.Since(t0)
				b.StartTimer()
			}
			b.ReportMetric(float64(size)*float64(b.N)/base.Seconds()/1e6, "cache-read-MB/s")
		})
	}
	os.Remove(filepath.Join(dir, "baseline"))
}

// writeSynced writes r to p and fsyncs it, returning the time taken.
func writeSynced(b *testing.B, p string, r io.Reader) time.Duration {
	t0 := time.Now()
	f, err := os.Create(p)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.CopyBuffer(f, r, make([]byte, 1<<20)); err != nil {
		b.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	return time.Since(t0)
}

// randomReader yields n pseudo-random bytes from seed.
type randomReader struct {
	n    int64
	seed uint64
	rng  *rand.ChaCha8
}

func (r *randomReader) Read(p []byte) (int, error) {
	if r.n <= 0 {
		return 0, io.EOF
	}
	if r.rng == nil {
		var s [32]byte
		s[0], s[1] = byte(r.seed), byte(r.seed>>8)
		r.rng = rand.NewChaCha8(s)
	}
	p = p[:min(int64(len(p)), r.n)]
	r.rng.Read(p)
	r.n -= int64(len(p))
	return len(p), nil
}
