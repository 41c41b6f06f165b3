package fsbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/desk-dev/desk/internal/fusefs"
	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/sandbox"
	"github.com/desk-dev/desk/internal/vfs"
)

// Defaults of Options.
const (
	DefaultRuns      = 3
	DefaultPackages  = 200 // npm packages in the install scenario
	DefaultPkgFiles  = 25  // files per package: 200 × 25 = 5,000
	DefaultFiles     = 1000
	DefaultBigSize   = 64 << 20
	DefaultWarmExecs = 50
)

// Options configure a run. Zero fields take the defaults.
type Options struct {
	// Dir is where the scratch directory is made: its filesystem is the
	// "disk" column (default os.TempDir()). Its ancestors must be
	// searchable by the sandbox's root (an unprivileged host uid).
	Dir string
	// Runtime is the OCI runtime (default sandbox.DefaultRuntime).
	Runtime string
	// InitPath is the binary that runs the sandbox's init (default: this
	// executable, which must be desk: it answers "sandbox-init").
	InitPath string
	// InitArgs are the init's arguments (default: the sandbox's default).
	InitArgs []string
	// Runs is how many times each scenario runs per filesystem; the median
	// is reported (default 3).
	Runs int
	// Files is the count of the create/stat/rm scenarios (default 1000);
	// BigSize the size of the large file (default 64 MiB); Packages and
	// PkgFiles the npm tree (default 200 packages of 25 files); WarmExecs
	// the warm executions timed (default 50). Smaller values make a quick
	// run (tests).
	Files     int
	BigSize   int64
	Packages  int
	PkgFiles  int
	WarmExecs int
	// NoDropCaches skips dropping the host's page cache before the cold
	// read (the row then measures a warm host cache under the mount).
	NoDropCaches bool
	// Trace counts the FUSE requests of each row's timed part on the
	// sandbox's mount (fusefs.Tracer): the report then tells, per row, how
	// many requests of each opcode a run sent and the server's time on them.
	Trace bool
	// Only, if set, runs only the rows whose name it matches (the cold
	// start and warm exec rows included). A row that uses what an earlier
	// one left makes it itself when it is missing.
	Only *regexp.Regexp
	// Progress, if not nil, receives a line per step.
	Progress io.Writer
}

func (o Options) withDefaults() (Options, error) {
	if o.Dir == "" {
		o.Dir = os.TempDir()
	}
	num := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	num(&o.Runs, DefaultRuns)
	num(&o.Files, DefaultFiles)
	num(&o.Packages, DefaultPackages)
	num(&o.PkgFiles, DefaultPkgFiles)
	num(&o.WarmExecs, DefaultWarmExecs)
	if o.BigSize <= 0 {
		o.BigSize = DefaultBigSize
	}
	if o.PkgFiles < 3 {
		return o, errors.New("check bench options: at least 3 files per package")
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	return o, nil
}

// The filesystems compared, in column order.
const (
	Sandbox = iota // /workspace: the store through FUSE
	Tmpfs          // /workspace: a tmpfs
	Disk           // /workspace: a directory on the disk of Options.Dir
	Bindfs         // /workspace: bindfs over a tmpfs (a plain FUSE passthrough), where bindfs is installed
	numFS
)

// FSNames are the column names.
var FSNames = [numFS]string{"sandbox", "tmpfs", "disk", "bindfs"}

// Row is one scenario's result: the median time on each filesystem.
type Row struct {
	Name   string
	Times  [numFS]time.Duration
	Target Target
}

// Target is the goal for a row: Sandbox time at most Ratio times
// the time on Of (Tmpfs or Disk), or, with Of < 0, at most Max.
type Target struct {
	Of    int
	Ratio float64
	Max   time.Duration
}

// Ratio is the sandbox's time over the time on fs.
func (r Row) Ratio(fs int) float64 {
	if r.Times[fs] <= 0 {
		return 0
	}
	return float64(r.Times[Sandbox]) / float64(r.Times[fs])
}

// Met reports whether the row meets its target (true without one).
func (r Row) Met() bool {
	switch {
	case r.Target.Of >= 0 && r.Target.Ratio > 0:
		return r.Ratio(r.Target.Of) <= r.Target.Ratio
	case r.Target.Of < 0 && r.Target.Max > 0:
		return r.Times[Sandbox] <= r.Target.Max
	}
	return true
}

// String words the target: "≤ 3.35× tmpfs", "< 300ms".
func (t Target) String() string {
	switch {
	case t.Of >= 0 && t.Ratio > 0:
		return fmt.Sprintf("≤ %g× %s", t.Ratio, FSNames[t.Of])
	case t.Of < 0 && t.Max > 0:
		return fmt.Sprintf("< %v", t.Max)
	}
	return ""
}

// Report is the result of a run.
type Report struct {
	Rows []Row // the scenarios, then cold start and warm exec
	// HasBindfs says the bindfs column was measured (bindfs is installed;
	// make bench-setup): without it its times are 0.
	HasBindfs bool
	// Traces are, with Options.Trace, the FUSE requests of each row's timed
	// part on the sandbox's mount, added over its runs (nil for the
	// cold start and warm exec rows).
	Traces []*fusefs.TraceStats
	DiskFS string // the filesystem type of Options.Dir ("ext4")
	Runs   int    // runs per cell
	Files  int    // files of the create/stat/rm rows
	Big    int64  // bytes of the large file
	Pkgs   int    // npm packages
	PkgFs  int    // files in them
}

// env is one of the three sandboxes.
type env struct {
	name string
	b    *sandbox.Backend
}

// bench is a run in progress.
type bench struct {
	o       Options
	scratch string
	fs      *vfs.FS
	envs    [numFS]*env
	seq     atomic.Int64
	cleanup []func()
	tracer  *fusefs.Tracer // with Options.Trace: the sandbox mount's
}

// Run runs every scenario and returns the report. It needs what the sandbox
// needs (root, an OCI runtime, user namespaces, /dev/fuse) and mounts a
// tmpfs (root). Everything it makes is under a scratch directory in
// Options.Dir, removed at the end.
func Run(ctx context.Context, opts Options) (*Report, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	if err := sandbox.Available(o.Runtime); err != nil {
		return nil, err
	}
	if err := sandbox.MountAvailable(); err != nil {
		return nil, err
	}
	bn := &bench{o: o}
	defer bn.close()
	if err := bn.setup(ctx); err != nil {
		return nil, err
	}
	rep := &Report{HasBindfs: bn.envs[Bindfs] != nil, DiskFS: fsType(bn.scratch), Runs: o.Runs, Files: o.Files, Big: o.BigSize, Pkgs: o.Packages, PkgFs: o.Packages * o.PkgFiles}
	for _, sc := range scenarios(o) {
		if o.Only != nil && !o.Only.MatchString(sc.name) {
			continue
		}
		row, tr, err := bn.scenario(ctx, sc)
		if err != nil {
			return nil, err
		}
		rep.Rows = append(rep.Rows, row)
		if bn.tracer != nil {
			rep.Traces = append(rep.Traces, tr)
		}
	}
	if o.Only != nil && !o.Only.MatchString(coldName) && !o.Only.MatchString(warmName) {
		return rep, nil
	}
	cold, warm, err := bn.execs(ctx)
	if err != nil {
		return nil, err
	}
	rep.Rows = append(rep.Rows, cold, warm)
	return rep, nil
}

// progress reports a step.
func (bn *bench) progress(format string, args ...any) {
	fmt.Fprintf(bn.o.Progress, format+"\n", args...)
}

// setup makes the scratch directory, the tmpfs, the disk directory, the
// store, the input files and the three backends.
func (bn *bench) setup(ctx context.Context) error {
	o := &bn.o
	scratch, err := os.MkdirTemp(o.Dir, "desk-bench-")
	if err != nil {
		return fmt.Errorf("make scratch directory: %w", err)
	}
	bn.scratch = scratch
	bn.cleanup = append(bn.cleanup, func() { os.RemoveAll(scratch) })
	if err := os.Chmod(scratch, 0o711); err != nil {
		return fmt.Errorf("make scratch directory: %w", err)
	}
	for d := filepath.Dir(scratch); ; d = filepath.Dir(d) {
		if fi, err := os.Stat(d); err == nil && fi.Mode().Perm()&0o001 == 0 {
			return fmt.Errorf("check scratch directory: the sandbox's root (host uid %d) cannot reach %s: %s is not searchable by others (chmod o+x, or choose another --dir)",
				sandbox.DefaultHostID, scratch, d)
		}
		if d == "/" {
			break
		}
	}
	hostID := sandbox.DefaultHostID
	dirs := map[int]string{Tmpfs: filepath.Join(scratch, "tmpfs"), Disk: filepath.Join(scratch, "disk")}
	for _, d := range dirs {
		if err := os.Mkdir(d, 0o755); err != nil {
			return fmt.Errorf("make scratch directory: %w", err)
		}
	}
	if err := unix.Mount("tmpfs", dirs[Tmpfs], "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "size=2g,mode=755"); err != nil {
		return fmt.Errorf("mount tmpfs: %w", err)
	}
	bn.cleanup = append(bn.cleanup, func() { unix.Unmount(dirs[Tmpfs], unix.MNT_DETACH) })
	for _, d := range dirs {
		if err := os.Chown(d, hostID, hostID); err != nil {
			return fmt.Errorf("make scratch directory: %w", err)
		}
	}
	pkgs := filepath.Join(scratch, "input")
	bn.progress("generating %d npm packages of %d files and %d MiB of random data", o.Packages, o.PkgFiles, o.BigSize>>20)
	if err := writeInputs(pkgs, o); err != nil {
		return err
	}
	bn.fs, err = vfs.Open(ctx, filepath.Join(scratch, "bench.db"), vfs.Options{})
	if err != nil {
		return fmt.Errorf("open store: %w", err)
	}
	bn.cleanup = append(bn.cleanup, func() { bn.fs.Close() })
	if err := bn.mountBindfs(dirs); err != nil {
		return err
	}
	for i := range numFS {
		if i == Bindfs && dirs[Bindfs] == "" {
			continue // no bindfs
		}
		so := sandbox.Options{
			Runtime:      o.Runtime,
			InitPath:     o.InitPath,
			InitArgs:     o.InitArgs,
			StateDir:     filepath.Join(scratch, "state-"+FSNames[i]),
			RuntimeRoot:  filepath.Join(scratch, "runc-"+FSNames[i]),
			CgroupParent: "desk-bench",
			Binds:        []sandbox.Bind{{Source: pkgs, Target: "/input"}},
			// Room for npm's cache and a copy of the input.
			TmpSize: 512 << 20,
			Memory:  2 << 30,
		}
		if i == Sandbox && o.Trace {
			bn.tracer = fusefs.NewTracer()
			so.FUSE.Tracer = bn.tracer
		}
		if i != Sandbox {
			d := dirs[i]
			so.Mount = func(context.Context, sandbox.Workspace) (sandbox.Mount, error) { return sandbox.Mount{Dir: d}, nil }
		}
		b, err := sandbox.New(so)
		if err != nil {
			return err
		}
		bn.cleanup = append(bn.cleanup, func() { b.Close() })
		bn.envs[i] = &env{name: FSNames[i], b: b}
	}
	for _, e := range bn.envs {
		if e == nil {
			continue
		}
		if _, err := bn.exec(ctx, e, "true"); err != nil {
			return err
		}
	}
	return nil
}

// mountBindfs mounts, where bindfs is installed, a tmpfs and bindfs over it
// (allow_other: the sandbox's root is another host uid) and sets
// dirs[Bindfs] to the bindfs mount point.
func (bn *bench) mountBindfs(dirs map[int]string) error {
	bin, err := exec.LookPath("bindfs")
	if err != nil {
		bn.progress("no bindfs: its column is left out (make bench-setup installs it)")
		return nil
	}
	src, mnt := filepath.Join(bn.scratch, "bindfs-src"), filepath.Join(bn.scratch, "bindfs")
	for _, d := range []string{src, mnt} {
		if err := os.Mkdir(d, 0o755); err != nil {
			return fmt.Errorf("make scratch directory: %w", err)
		}
	}
	if err := unix.Mount("tmpfs", src, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "size=2g,mode=755"); err != nil {
		return fmt.Errorf("mount tmpfs: %w", err)
	}
	bn.cleanup = append(bn.cleanup, func() { unix.Unmount(src, unix.MNT_DETACH) })
	if err := os.Chown(src, sandbox.DefaultHostID, sandbox.DefaultHostID); err != nil {
		return fmt.Errorf("make scratch directory: %w", err)
	}
	if out, err := exec.Command(bin, "-o", "allow_other", src, mnt).CombinedOutput(); err != nil {
		return fmt.Errorf("mount bindfs: %w: %s", err, strings.TrimSpace(string(out)))
	}
	bn.cleanup = append(bn.cleanup, func() {
		if err := unix.Unmount(mnt, 0); err != nil {
			unix.Unmount(mnt, unix.MNT_DETACH)
		}
	})
	dirs[Bindfs] = mnt
	return nil
}

// close undoes setup, last step first.
func (bn *bench) close() {
	for _, f := range slices.Backward(bn.cleanup) {
		f()
	}
}

// exec runs src in e's sandbox (cwd /workspace) and returns its stdout; a
// non-zero exit is an error carrying stderr.
func (bn *bench) exec(ctx context.Context, e *env, src string) (string, error) {
	var out, errb strings.Builder
	job := &run.Job{ID: "bench-" + strconv.FormatInt(bn.seq.Add(1), 10), Backend: sandbox.ID, Source: src, Cwd: run.DefaultCwd,
		Env: run.DefaultEnv(), Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, FS: bn.fs}
	res, err := e.b.Run(ctx, job)
	if err != nil {
		return "", fmt.Errorf("run in the %s sandbox: %w", e.name, err)
	}
	if res.ExitCode != 0 {
		return "", fmt.Errorf("run in the %s sandbox: exit %d: %s\n%s", e.name, res.ExitCode, firstLine(src), tail(errb.String(), 2000))
	}
	return out.String(), nil
}

// firstLine is the first line of s.
func firstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return l
}

// tail is the last n bytes of s.
func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}

// scenario runs sc Runs times on every filesystem, interleaved, and keeps
// the medians; with a tracer, it also returns the sandbox mount's requests
// during the timed parts of its runs.
func (bn *bench) scenario(ctx context.Context, sc scenario) (Row, *fusefs.TraceStats, error) {
	row := Row{Name: sc.name, Target: sc.target}
	var traced *fusefs.TraceStats
	if bn.tracer != nil {
		traced = new(fusefs.TraceStats)
	}
	var times [numFS][]time.Duration
	for r := range bn.o.Runs {
		for i, e := range bn.envs {
			if e == nil {
				continue
			}
			if sc.setup != "" {
				if _, err := bn.exec(ctx, e, sc.setup); err != nil {
					return row, nil, fmt.Errorf("%s: set up: %w", sc.name, err)
				}
			}
			if sc.dropCaches && !bn.o.NoDropCaches {
				if err := dropCaches(); err != nil {
					return row, nil, err
				}
			}
			var before *fusefs.TraceStats
			if i == Sandbox && traced != nil {
				before = bn.tracer.Stats()
			}
			out, err := bn.exec(ctx, e, "t0=$EPOCHREALTIME\n"+sc.body+"\nt1=$EPOCHREALTIME\necho \"$t0 $t1\"")
			if before != nil {
				traced.Add(bn.tracer.Stats().Sub(before))
			}
			if err != nil {
				return row, nil, fmt.Errorf("%s: %w", sc.name, err)
			}
			d, err := elapsed(out)
			if err != nil {
				return row, nil, fmt.Errorf("%s in the %s sandbox: %w", sc.name, e.name, err)
			}
			times[i] = append(times[i], d)
			if sc.cleanup != "" {
				if _, err := bn.exec(ctx, e, sc.cleanup); err != nil {
					return row, nil, fmt.Errorf("%s: clean up: %w", sc.name, err)
				}
			}
			bn.progress("%-34s run %d  %-8s %8.1f ms", sc.name, r+1, e.name, ms(d))
		}
	}
	for i := range times {
		row.Times[i] = median(times[i])
	}
	return row, traced, nil
}

// The names of the rows execs times.
const (
	coldName = "sandbox cold start (first `true`)"
	warmName = "warm exec of `true`"
)

// execs times the sandbox cold start (the first `true` of a workspace, its
// mount included) and warm executions of `true`, on every filesystem.
func (bn *bench) execs(ctx context.Context) (cold, warm Row, err error) {
	cold = Row{Name: coldName, Target: Target{Of: -1, Max: 300 * time.Millisecond}}
	warm = Row{Name: warmName, Target: Target{Of: -1, Max: 5 * time.Millisecond}}
	var colds, warms [numFS][]time.Duration
	for r := range bn.o.Runs {
		for i, e := range bn.envs {
			if e == nil {
				continue
			}
			if err := e.b.Stop(ctx, "bench"); err != nil {
				return cold, warm, err
			}
			t0 := time.Now()
			if _, err := bn.exec(ctx, e, "true"); err != nil {
				return cold, warm, err
			}
			colds[i] = append(colds[i], time.Since(t0))
			bn.progress("%-34s run %d  %-8s %8.1f ms", cold.Name, r+1, e.name, ms(time.Since(t0)))
		}
	}
	for i, e := range bn.envs {
		if e == nil {
			continue
		}
		for range bn.o.WarmExecs {
			t0 := time.Now()
			if _, err := bn.exec(ctx, e, "true"); err != nil {
				return cold, warm, err
			}
			warms[i] = append(warms[i], time.Since(t0))
		}
		bn.progress("%-34s %d runs  %-8s %8.2f ms", warm.Name, bn.o.WarmExecs, e.name, ms(median(warms[i])))
	}
	for i := range numFS {
		cold.Times[i], warm.Times[i] = median(colds[i]), median(warms[i])
	}
	return cold, warm, nil
}

// elapsed parses the "t0 t1" line a timed script prints ($EPOCHREALTIME).
func elapsed(out string) (time.Duration, error) {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	f := strings.Fields(lines[len(lines)-1])
	if len(f) != 2 {
		return 0, fmt.Errorf("read the script's times: %q", out)
	}
	t0, err0 := parseEpoch(f[0])
	t1, err1 := parseEpoch(f[1])
	if err := errors.Join(err0, err1); err != nil {
		return 0, fmt.Errorf("read the script's times: %w", err)
	}
	return t1 - t0, nil
}

// parseEpoch parses $EPOCHREALTIME ("1700000000.123456") to a duration since
// the epoch, exactly.
func parseEpoch(s string) (time.Duration, error) {
	sec, frac, _ := strings.Cut(s, ".")
	a, err := strconv.ParseInt(sec, 10, 64)
	if err != nil {
		return 0, err
	}
	frac = (frac + "000000")[:6]
	b, err := strconv.ParseInt(frac, 10, 64)
	if err != nil {
		return 0, err
	}
	return time.Duration(a)*time.Second + time.Duration(b)*time.Microsecond, nil
}

// median of ds (0 for none).
func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// ms is d in milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// dropCaches writes back and drops the host's page cache, dentries and
// inodes, so the next read comes from the disk (or, through the mount, from
// the store's file on the disk).
func dropCaches() error {
	unix.Sync()
	if err := os.WriteFile("/proc/sys/vm/drop_caches", []byte("3"), 0); err != nil {
		return fmt.Errorf("drop the page cache: %w (--no-drop-caches skips it)", err)
	}
	return nil
}

// fsType names the filesystem holding dir.
func fsType(dir string) string {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return "?"
	}
	switch st.Type {
	case unix.EXT4_SUPER_MAGIC:
		return "ext4"
	case unix.XFS_SUPER_MAGIC:
		return "xfs"
	case unix.BTRFS_SUPER_MAGIC:
		return "btrfs"
	case unix.TMPFS_MAGIC:
		return "tmpfs"
	case unix.OVERLAYFS_SUPER_MAGIC:
		return "overlay"
	}
	return fmt.Sprintf("0x%x", st.Type)
}
