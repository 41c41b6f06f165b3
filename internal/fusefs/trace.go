package fusefs

import (
	"fmt"
	"io"
	"math/bits"
	"slices"
	"sync/atomic"
	"time"

	"github.com/hanwen/go-fuse/v2/fuse"
)

// Tracer counts the FUSE requests a mount serves, per opcode: how many, how
// many failed, the bytes of READ and WRITE, and their latencies (the time
// the server spent on each, from go-fuse's call into the filesystem to its
// return: the kernel's share of a round trip is not in it) as totals and a
// histogram for percentiles. INTERRUPT, which go-fuse answers itself, is not
// counted. Set it as Options.Tracer; read it at any time
// with Stats, while the mount serves or after. It costs two clock reads and a
// few atomic additions per request, and a fixed 30 KiB of memory. One
// Tracer may serve several mounts (their requests add up). Safe for
// concurrent use.
type Tracer struct {
	ops [numTraceOps]traceOp
}

// traceOp is one opcode's counters.
type traceOp struct {
	count, errs, nanos, bytes, max atomic.Int64
	hist                           [traceBuckets]atomic.Int64
}

// The opcodes traced, in the order TraceStats lists equal totals.
const (
	opLookup = iota
	opForget
	opGetattr
	opSetattr
	opMknod
	opMkdir
	opUnlink
	opRmdir
	opRename
	opLink
	opSymlink
	opReadlink
	opAccess
	opGetxattr
	opListxattr
	opSetxattr
	opRemovexattr
	opCreate
	opTmpfile
	opOpen
	opRead
	opLseek
	opGetlk
	opSetlk
	opSetlkw
	opRelease
	opWrite
	opCopyFileRange
	opIoctl
	opFlush
	opFsync
	opFallocate
	opOpendir
	opReaddir
	opReaddirplus
	opReleasedir
	opFsyncdir
	opStatfs
	opStatx
	numTraceOps
)

var traceOpNames = [numTraceOps]string{"LOOKUP", "FORGET", "GETATTR", "SETATTR", "MKNOD", "MKDIR", "UNLINK", "RMDIR",
	"RENAME", "LINK", "SYMLINK", "READLINK", "ACCESS", "GETXATTR", "LISTXATTR", "SETXATTR", "REMOVEXATTR", "CREATE",
	"TMPFILE", "OPEN", "READ", "LSEEK", "GETLK", "SETLK", "SETLKW", "RELEASE", "WRITE", "COPY_FILE_RANGE", "IOCTL",
	"FLUSH", "FSYNC", "FALLOCATE", "OPENDIR", "READDIR", "READDIRPLUS", "RELEASEDIR", "FSYNCDIR", "STATFS", "STATX"}

// traceBuckets is the histogram's size: four buckets per power of two of
// nanoseconds, up to 2^48 ns (78 hours).
const traceBuckets = 48 * 4

// bucket is the histogram bucket of a latency of ns nanoseconds.
func bucket(ns int64) int {
	if ns < 4 {
		return int(max(ns, 0))
	}
	e := bits.Len64(uint64(ns)) - 1
	sub := int(ns>>(e-2)) & 3
	return min(e*4+sub, traceBuckets-1)
}

// bucketTop is the largest latency bucket b holds.
func bucketTop(b int) time.Duration {
	if b < 4 {
		return time.Duration(b)
	}
	e, sub := b/4, b%4
	return time.Duration((int64(4+sub+1) << (e - 2)) - 1)
}

// NewTracer returns a Tracer with every counter at zero.
func NewTracer() *Tracer { return new(Tracer) }

// record counts one request of opcode op that started at t0; st, if not
// nil, is its outcome.
func (t *Tracer) record(op int, t0 time.Time, st *fuse.Status, n int64) {
	t.add(op, time.Since(t0), st != nil && !st.Ok(), n)
}

// add counts one request of opcode op that took d.
func (t *Tracer) add(op int, dur time.Duration, failed bool, n int64) {
	d := int64(dur)
	o := &t.ops[op]
	o.count.Add(1)
	o.nanos.Add(d)
	if n > 0 {
		o.bytes.Add(n)
	}
	if failed {
		o.errs.Add(1)
	}
	o.hist[bucket(d)].Add(1)
	for m := o.max.Load(); d > m && !o.max.CompareAndSwap(m, d); m = o.max.Load() {
	}
}

// Stats returns a copy of the counters as they are now.
func (t *Tracer) Stats() *TraceStats {
	s := new(TraceStats)
	for i := range t.ops {
		o, c := &t.ops[i], &s.ops[i]
		c.count, c.errs, c.nanos, c.bytes, c.max = o.count.Load(), o.errs.Load(), o.nanos.Load(), o.bytes.Load(), o.max.Load()
		for b := range o.hist {
			c.hist[b] = o.hist[b].Load()
		}
	}
	return s
}

// TraceStats is a Tracer's counters at one moment (Tracer.Stats), or the
// difference of two such moments (Sub): what the mount served in between.
type TraceStats struct {
	ops [numTraceOps]traceCounts
}

type traceCounts struct {
	count, errs, nanos, bytes, max int64
	hist                           [traceBuckets]int64
}

// Sub returns what s counted since earlier, a snapshot of the same Tracer
// taken before it. The maximum latency of the difference is that of s (a
// histogram cannot tell which requests were the slowest).
func (s *TraceStats) Sub(earlier *TraceStats) *TraceStats {
	d := new(TraceStats)
	for i := range s.ops {
		a, b, c := &s.ops[i], &earlier.ops[i], &d.ops[i]
		c.count, c.errs, c.nanos, c.bytes = a.count-b.count, a.errs-b.errs, a.nanos-b.nanos, a.bytes-b.bytes
		for k := range a.hist {
			c.hist[k] = a.hist[k] - b.hist[k]
		}
		if c.count > 0 {
			c.max = a.max
		}
	}
	return d
}

// Add adds o's counts to s (the requests of several periods together).
func (s *TraceStats) Add(o *TraceStats) {
	for i := range s.ops {
		a, b := &s.ops[i], &o.ops[i]
		a.count, a.errs, a.nanos, a.bytes, a.max = a.count+b.count, a.errs+b.errs, a.nanos+b.nanos, a.bytes+b.bytes, max(a.max, b.max)
		for k := range a.hist {
			a.hist[k] += b.hist[k]
		}
	}
}

// TraceOp is one opcode's line of a TraceStats.
type TraceOp struct {
	Op     string // the FUSE opcode: "LOOKUP", "CREATE", ...
	Count  int64  // requests served
	Errors int64  // requests answered with an error (a LOOKUP of a missing name among them)
	Bytes  int64  // bytes read or written (READ, WRITE)
	Total  time.Duration
	// P50, P90 and P99 are latency percentiles, each the top of its
	// histogram bucket (within 19% above the true value); Max is exact for a
	// Tracer's own Stats, and the maximum since the Tracer started for a
	// difference.
	P50, P90, P99, Max time.Duration
}

// Mean is the average latency.
func (o TraceOp) Mean() time.Duration {
	if o.Count == 0 {
		return 0
	}
	return o.Total / time.Duration(o.Count)
}

// Ops lists the opcodes that served requests, the largest total latency first.
func (s *TraceStats) Ops() []TraceOp {
	var out []TraceOp
	for i := range s.ops {
		c := &s.ops[i]
		if c.count <= 0 {
			continue
		}
		out = append(out, TraceOp{Op: traceOpNames[i], Count: c.count, Errors: c.errs, Bytes: c.bytes, Total: time.Duration(c.nanos),
			P50: c.percentile(0.50), P90: c.percentile(0.90), P99: c.percentile(0.99), Max: time.Duration(c.max)})
	}
	slices.SortStableFunc(out, func(a, b TraceOp) int { return int(b.Total - a.Total) })
	return out
}

// percentile is the top of the bucket holding quantile q.
func (c *traceCounts) percentile(q float64) time.Duration {
	rank := int64(q*float64(c.count) + 0.5)
	rank = max(rank, 1)
	var seen int64
	for b, n := range c.hist {
		seen += n
		if seen >= rank {
			top := bucketTop(b)
			if c.max > 0 {
				top = min(top, time.Duration(c.max))
			}
			return top
		}
	}
	return time.Duration(c.max)
}

// Requests is the count of every request and the total time the server
// spent on them.
func (s *TraceStats) Requests() (int64, time.Duration) {
	var n, d int64
	for i := range s.ops {
		n += s.ops[i].count
		d += s.ops[i].nanos
	}
	return n, time.Duration(d)
}

// Format writes s as a Markdown table, one line per opcode, counts divided
// by per (the runs the stats add up; 1 or less: as counted).
func (s *TraceStats) Format(w io.Writer, per int) {
	per = max(per, 1)
	fmt.Fprintln(w, "| op | requests | errors | MiB | total ms | mean µs | p50 µs | p90 µs | p99 µs | max µs |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	us := func(d time.Duration) string { return fmt.Sprintf("%.0f", float64(d)/float64(time.Microsecond)) }
	for _, o := range s.Ops() {
		mib := ""
		if o.Bytes > 0 {
			mib = fmt.Sprintf("%.1f", float64(o.Bytes)/float64(per)/(1<<20))
		}
		fmt.Fprintf(w, "| %s | %d | %d | %s | %.2f | %s | %s | %s | %s | %s |\n", o.Op, o.Count/int64(per), o.Errors/int64(per), mib,
			float64(o.Total)/float64(per)/float64(time.Millisecond), us(o.Mean()), us(o.P50), us(o.P90), us(o.P99), us(o.Max))
	}
	n, d := s.Requests()
	fmt.Fprintf(w, "| all | %d | | | %.2f | | | | | |\n", n/int64(per), float64(d)/float64(per)/float64(time.Millisecond))
}

// traceFS counts every request the kernel sends (see Tracer) and passes it on.
type traceFS struct {
	fuse.RawFileSystem
	t *Tracer
}

func (f *traceFS) Lookup(c <-chan struct{}, h *fuse.InHeader, name string, out *fuse.EntryOut) fuse.Status {
	t0 := time.Now()
	st := f.RawFileSystem.Lookup(c, h, name, out)
	// A missing name is answered OK with node id 0 (a negative entry the
	// kernel caches): counted as an error.
	f.t.add(opLookup, time.Since(t0), !st.Ok() || out.NodeId == 0, 0)
	return st
}

func (f *traceFS) Forget(nodeid, nlookup uint64) {
	defer f.t.record(opForget, time.Now(), nil, 0)
	f.RawFileSystem.Forget(nodeid, nlookup)
}

func (f *traceFS) GetAttr(c <-chan struct{}, in *fuse.GetAttrIn, out *fuse.AttrOut) (st fuse.Status) {
	defer f.t.record(opGetattr, time.Now(), &st, 0)
	return f.RawFileSystem.GetAttr(c, in, out)
}

func (f *traceFS) SetAttr(c <-chan struct{}, in *fuse.SetAttrIn, out *fuse.AttrOut) (st fuse.Status) {
	defer f.t.record(opSetattr, time.Now(), &st, 0)
	return f.RawFileSystem.SetAttr(c, in, out)
}

func (f *traceFS) Mknod(c <-chan struct{}, in *fuse.MknodIn, name string, out *fuse.EntryOut) (st fuse.Status) {
	defer f.t.record(opMknod, time.Now(), &st, 0)
	return f.RawFileSystem.Mknod(c, in, name, out)
}

func (f *traceFS) Mkdir(c <-chan struct{}, in *fuse.MkdirIn, name string, out *fuse.EntryOut) (st fuse.Status) {
	defer f.t.record(opMkdir, time.Now(), &st, 0)
	return f.RawFileSystem.Mkdir(c, in, name, out)
}

func (f *traceFS) Unlink(c <-chan struct{}, h *fuse.InHeader, name string) (st fuse.Status) {
	defer f.t.record(opUnlink, time.Now(), &st, 0)
	return f.RawFileSystem.Unlink(c, h, name)
}

func (f *traceFS) Rmdir(c <-chan struct{}, h *fuse.InHeader, name string) (st fuse.Status) {
	defer f.t.record(opRmdir, time.Now(), &st, 0)
	return f.RawFileSystem.Rmdir(c, h, name)
}

func (f *traceFS) Rename(c <-chan struct{}, in *fuse.RenameIn, oldName, newName string) (st fuse.Status) {
	defer f.t.record(opRename, time.Now(), &st, 0)
	return f.RawFileSystem.Rename(c, in, oldName, newName)
}

func (f *traceFS) Link(c <-chan struct{}, in *fuse.LinkIn, name string, out *fuse.EntryOut) (st fuse.Status) {
	defer f.t.record(opLink, time.Now(), &st, 0)
	return f.RawFileSystem.Link(c, in, name, out)
}

func (f *traceFS) Symlink(c <-chan struct{}, h *fuse.InHeader, target, name string, out *fuse.EntryOut) (st fuse.Status) {
	defer f.t.record(opSymlink, time.Now(), &st, 0)
	return f.RawFileSystem.Symlink(c, h, target, name, out)
}

func (f *traceFS) Readlink(c <-chan struct{}, h *fuse.InHeader) (out []byte, st fuse.Status) {
	defer f.t.record(opReadlink, time.Now(), &st, 0)
	return f.RawFileSystem.Readlink(c, h)
}

func (f *traceFS) Access(c <-chan struct{}, in *fuse.AccessIn) (st fuse.Status) {
	defer f.t.record(opAccess, time.Now(), &st, 0)
	return f.RawFileSystem.Access(c, in)
}

func (f *traceFS) GetXAttr(c <-chan struct{}, h *fuse.InHeader, attr string, dest []byte) (n uint32, st fuse.Status) {
	defer f.t.record(opGetxattr, time.Now(), &st, 0)
	return f.RawFileSystem.GetXAttr(c, h, attr, dest)
}

func (f *traceFS) ListXAttr(c <-chan struct{}, h *fuse.InHeader, dest []byte) (n uint32, st fuse.Status) {
	defer f.t.record(opListxattr, time.Now(), &st, 0)
	return f.RawFileSystem.ListXAttr(c, h, dest)
}

func (f *traceFS) SetXAttr(c <-chan struct{}, in *fuse.SetXAttrIn, attr string, data []byte) (st fuse.Status) {
	defer f.t.record(opSetxattr, time.Now(), &st, 0)
	return f.RawFileSystem.SetXAttr(c, in, attr, data)
}

func (f *traceFS) RemoveXAttr(c <-chan struct{}, h *fuse.InHeader, attr string) (st fuse.Status) {
	defer f.t.record(opRemovexattr, time.Now(), &st, 0)
	return f.RawFileSystem.RemoveXAttr(c, h, attr)
}

func (f *traceFS) Create(c <-chan struct{}, in *fuse.CreateIn, name string, out *fuse.CreateOut) (st fuse.Status) {
	defer f.t.record(opCreate, time.Now(), &st, 0)
	return f.RawFileSystem.Create(c, in, name, out)
}

func (f *traceFS) Tmpfile(c <-chan struct{}, in *fuse.CreateIn, out *fuse.CreateOut) (st fuse.Status) {
	defer f.t.record(opTmpfile, time.Now(), &st, 0)
	return f.RawFileSystem.Tmpfile(c, in, out)
}

func (f *traceFS) Open(c <-chan struct{}, in *fuse.OpenIn, out *fuse.OpenOut) (st fuse.Status) {
	defer f.t.record(opOpen, time.Now(), &st, 0)
	return f.RawFileSystem.Open(c, in, out)
}

func (f *traceFS) Read(c <-chan struct{}, in *fuse.ReadIn, buf []byte) (r fuse.ReadResult, st fuse.Status) {
	t0 := time.Now()
	r, st = f.RawFileSystem.Read(c, in, buf)
	var n int64
	if st.Ok() && r != nil {
		n = int64(r.Size())
	}
	f.t.record(opRead, t0, &st, n)
	return r, st
}

func (f *traceFS) Lseek(c <-chan struct{}, in *fuse.LseekIn, out *fuse.LseekOut) (st fuse.Status) {
	defer f.t.record(opLseek, time.Now(), &st, 0)
	return f.RawFileSystem.Lseek(c, in, out)
}

func (f *traceFS) GetLk(c <-chan struct{}, in *fuse.LkIn, out *fuse.LkOut) (st fuse.Status) {
	defer f.t.record(opGetlk, time.Now(), &st, 0)
	return f.RawFileSystem.GetLk(c, in, out)
}

func (f *traceFS) SetLk(c <-chan struct{}, in *fuse.LkIn) (st fuse.Status) {
	defer f.t.record(opSetlk, time.Now(), &st, 0)
	return f.RawFileSystem.SetLk(c, in)
}

func (f *traceFS) SetLkw(c <-chan struct{}, in *fuse.LkIn) (st fuse.Status) {
	defer f.t.record(opSetlkw, time.Now(), &st, 0)
	return f.RawFileSystem.SetLkw(c, in)
}

func (f *traceFS) Release(c <-chan struct{}, in *fuse.ReleaseIn) {
	defer f.t.record(opRelease, time.Now(), nil, 0)
	f.RawFileSystem.Release(c, in)
}

func (f *traceFS) Write(c <-chan struct{}, in *fuse.WriteIn, data []byte) (n uint32, st fuse.Status) {
	t0 := time.Now()
	n, st = f.RawFileSystem.Write(c, in, data)
	f.t.record(opWrite, t0, &st, int64(n))
	return n, st
}

func (f *traceFS) Writev(c <-chan struct{}, in *fuse.WriteIn, data [][]byte) (n uint32, st fuse.Status) {
	t0 := time.Now()
	n, st = f.RawFileSystem.Writev(c, in, data)
	if st != fuse.ENOSYS { // else go-fuse copies the pieces and calls Write
		f.t.record(opWrite, t0, &st, int64(n))
	}
	return n, st
}

func (f *traceFS) CopyFileRange(c <-chan struct{}, in *fuse.CopyFileRangeIn) (n uint32, st fuse.Status) {
	defer f.t.record(opCopyFileRange, time.Now(), &st, 0)
	return f.RawFileSystem.CopyFileRange(c, in)
}

func (f *traceFS) Ioctl(c <-chan struct{}, in *fuse.IoctlIn, inbuf []byte, out *fuse.IoctlOut, outbuf []byte) (st fuse.Status) {
	defer f.t.record(opIoctl, time.Now(), &st, 0)
	return f.RawFileSystem.Ioctl(c, in, inbuf, out, outbuf)
}

func (f *traceFS) Flush(c <-chan struct{}, in *fuse.FlushIn) (st fuse.Status) {
	defer f.t.record(opFlush, time.Now(), &st, 0)
	return f.RawFileSystem.Flush(c, in)
}

func (f *traceFS) Fsync(c <-chan struct{}, in *fuse.FsyncIn) (st fuse.Status) {
	defer f.t.record(opFsync, time.Now(), &st, 0)
	return f.RawFileSystem.Fsync(c, in)
}

func (f *traceFS) Fallocate(c <-chan struct{}, in *fuse.FallocateIn) (st fuse.Status) {
	defer f.t.record(opFallocate, time.Now(), &st, 0)
	return f.RawFileSystem.Fallocate(c, in)
}

func (f *traceFS) OpenDir(c <-chan struct{}, in *fuse.OpenIn, out *fuse.OpenOut) (st fuse.Status) {
	defer f.t.record(opOpendir, time.Now(), &st, 0)
	return f.RawFileSystem.OpenDir(c, in, out)
}

func (f *traceFS) ReadDir(c <-chan struct{}, in *fuse.ReadIn, out *fuse.DirEntryList) (st fuse.Status) {
	defer f.t.record(opReaddir, time.Now(), &st, 0)
	return f.RawFileSystem.ReadDir(c, in, out)
}

func (f *traceFS) ReadDirPlus(c <-chan struct{}, in *fuse.ReadIn, out *fuse.DirEntryList) (st fuse.Status) {
	defer f.t.record(opReaddirplus, time.Now(), &st, 0)
	return f.RawFileSystem.ReadDirPlus(c, in, out)
}

func (f *traceFS) ReleaseDir(in *fuse.ReleaseIn) {
	defer f.t.record(opReleasedir, time.Now(), nil, 0)
	f.RawFileSystem.ReleaseDir(in)
}

func (f *traceFS) FsyncDir(c <-chan struct{}, in *fuse.FsyncIn) (st fuse.Status) {
	defer f.t.record(opFsyncdir, time.Now(), &st, 0)
	return f.RawFileSystem.FsyncDir(c, in)
}

func (f *traceFS) StatFs(c <-chan struct{}, h *fuse.InHeader, out *fuse.StatfsOut) (st fuse.Status) {
	defer f.t.record(opStatfs, time.Now(), &st, 0)
	return f.RawFileSystem.StatFs(c, h, out)
}

func (f *traceFS) Statx(c <-chan struct{}, in *fuse.StatxIn, out *fuse.StatxOut) (st fuse.Status) {
	defer f.t.record(opStatx, time.Now(), &st, 0)
	return f.RawFileSystem.Statx(c, in, out)
}
