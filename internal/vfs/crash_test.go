package vfs_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/vfs"
)

// The crash test runs a child process (this test binary, re-executed) that
// applies a deterministic sequence of operations to a store and prints "ACK n"
// after operation n returned success. The parent kills it with SIGKILL at a
// random moment, reopens the store and checks that every acknowledged operation
// is there, that nothing else is (but for the one in flight), and that Check
// finds no problem.

const crashEnv = "DESK_VFS_CRASH_CHILD"

// crashDeferEnv makes the child apply its operations with deferred commits
// (FS.WithCommitDelay): it prints "APPLIED n" when operation n returned and
// "ACK n" after a Commit made everything up to n durable.
const crashDeferEnv = "DESK_VFS_CRASH_DEFER"

// crashBatchEnv is crashDeferEnv with a batching handle (FS.WithBatching, as
// an execution gets): a File's Close is deferred too.
const crashBatchEnv = "DESK_VFS_CRASH_BATCH"

// crashSmallEnv makes the child's store checkpoint and reclaim free pages
// all the time (CheckpointBytes of 256 KiB: reclaim.go's incremental vacuum
// runs whenever 64 KiB are free), so that kills land in them too.
const crashSmallEnv = "DESK_VFS_CRASH_SMALL"

func TestMain(m *testing.M) {
	if db := os.Getenv(crashEnv); db != "" {
		crashChild(db)
		os.Exit(0)
	}
	if db := os.Getenv(copyCrashEnv); db != "" {
		copyCrashChild(db)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// crashOp is operation i of the deterministic sequence, applied to a model
// (path → content; directories have content "<dir>").
type crashOp struct {
	i    int
	kind string
	a, b string
	data []byte
	off  int64 // truncate: the size; patch: where data goes
}

func crashContent(i, size int) []byte {
	h := sha256.Sum256([]byte(strconv.Itoa(i)))
	b := bytes.Repeat(h[:], size/32+1)
	return b[:size]
}

func crashOpN(i int) crashOp {
	r := rand.New(rand.NewPCG(uint64(i), 42))
	dir := fmt.Sprintf("/d%d", i%5)
	switch k := r.IntN(10); {
	case i < 5:
		return crashOp{i: i, kind: "mkdir", a: fmt.Sprintf("/d%d", i)}
	case k < 4:
		// 2000 and 2049 sit each side of the inline size (DefaultInlineMax).
		size := []int{0, 10, 2000, 2049, 5000, 70000, 300000}[r.IntN(7)]
		kind := "write"
		if r.IntN(2) == 0 {
			kind = "writeh" // through a handle: create, writes, Close (no Sync)
		}
		return crashOp{i: i, kind: kind, a: fmt.Sprintf("%s/f%d", dir, r.IntN(20)), data: crashContent(i, size)}
	case k < 5:
		// Streaming write larger than DirtyBytes: goes through staging.
		return crashOp{i: i, kind: "write", a: fmt.Sprintf("%s/big%d", dir, r.IntN(3)), data: crashContent(i, 600000+r.IntN(100000))}
	case k < 7:
		return crashOp{i: i, kind: "append", a: fmt.Sprintf("%s/log%d", dir, r.IntN(3)), data: crashContent(i, 1+r.IntN(20000))}
	case k < 8 && r.IntN(2) == 0:
		// Three files in one Batch: all or nothing.
		return crashOp{i: i, kind: "batch", a: fmt.Sprintf("%s/b%d", dir, r.IntN(5)), data: crashContent(i, 1+r.IntN(9000))}
	case k < 8:
		return crashOp{i: i, kind: "rename", a: fmt.Sprintf("%s/f%d", dir, r.IntN(20)), b: fmt.Sprintf("/d%d/f%d", r.IntN(5), r.IntN(20))}
	case k == 8 && r.IntN(3) == 0:
		// A tree copy (CopyTree): all of it or nothing.
		return crashOp{i: i, kind: "copy", a: dir, b: fmt.Sprintf("/c%d", i)}
	case k == 9 && r.IntN(2) == 0:
		// Across the inline size: truncate (grow or shrink), or patch bytes
		// in place through a handle (merged onto inline or chunked content).
		a := fmt.Sprintf("%s/f%d", dir, r.IntN(20))
		off := int64([]int{0, 100, 2040, 2048, 2049, 3000}[r.IntN(6)])
		if r.IntN(2) == 0 {
			return crashOp{i: i, kind: "truncate", a: a, off: off}
		}
		return crashOp{i: i, kind: "patch", a: a, off: off, data: crashContent(i, 1+r.IntN(100))}
	default:
		return crashOp{i: i, kind: "remove", a: fmt.Sprintf("%s/f%d", dir, r.IntN(20))}
	}
}

// apply applies op to the model; errors that the store would also return
// (missing source) leave the model unchanged.
func (op crashOp) apply(m map[string]string) {
	switch op.kind {
	case "mkdir":
		m[op.a] = "<dir>"
	case "write", "writeh":
		m[op.a] = string(op.data)
	case "batch":
		for j := 0; j < 3; j++ {
			m[op.a+"-"+strconv.Itoa(j)] = string(op.data[:len(op.data)*(j+1)/3])
		}
	case "append":
		m[op.a] += string(op.data)
	case "rename":
		if v, ok := m[op.a]; ok && op.a != op.b {
			m[op.b] = v
			delete(m, op.a)
		}
	case "remove":
		delete(m, op.a)
	case "copy":
		for k, v := range m {
			if k == op.a || strings.HasPrefix(k, op.a+"/") {
				m[op.b+k[len(op.a):]] = v
			}
		}
	case "truncate", "patch":
		v, ok := m[op.a]
		if !ok {
			return
		}
		b := []byte(v)
		if op.kind == "truncate" {
			b = append(b, make([]byte, max(op.off-int64(len(b)), 0))...)[:op.off]
		} else {
			if end := op.off + int64(len(op.data)); end > int64(len(b)) {
				b = append(b, make([]byte, end-int64(len(b)))...)
			}
			copy(b[op.off:], op.data)
		}
		m[op.a] = string(b)
	}
}

func (op crashOp) run(ctx context.Context, f *vfs.FS) error {
	switch op.kind {
	case "mkdir":
		return f.Mkdir(ctx, op.a, 0o755)
	case "write":
		return f.WriteFile(ctx, op.a, op.data, 0o644)
	case "batch":
		return f.Batch(ctx, func(b *vfs.Batch) error {
			for j := 0; j < 3; j++ {
				b.WriteFile(op.a+"-"+strconv.Itoa(j), op.data[:len(op.data)*(j+1)/3], 0o644)
			}
			return nil
		})
	case "writeh":
		h, err := f.OpenFile(ctx, op.a, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
		if err != nil {
			return err
		}
		for p := op.data; len(p) > 0; {
			n := min(len(p), 7000)
			if _, err := h.Write(p[:n]); err != nil {
				h.Close()
				return err
			}
			p = p[n:]
		}
		return h.Close()
	case "append":
		h, err := f.OpenFile(ctx, op.a, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			return err
		}
		// Several writes, then Sync: the acknowledgement point for handles.
		for p := op.data; len(p) > 0; {
			n := min(len(p), 3000)
			if _, err := h.Write(p[:n]); err != nil {
				h.Close()
				return err
			}
			p = p[n:]
		}
		if err := h.Sync(); err != nil {
			h.Close()
			return err
		}
		return h.Close()
	case "rename":
		err := f.Rename(ctx, op.a, op.b, 0)
		if vfs.Errno(err) == syscall.ENOENT {
			return nil
		}
		return err
	case "remove":
		err := f.Remove(ctx, op.a)
		if vfs.Errno(err) == syscall.ENOENT {
			return nil
		}
		return err
	case "copy":
		return f.CopyTree(ctx, op.a, op.b, vfs.CopyOptions{Umask: 0o022})
	case "truncate":
		err := f.Truncate(ctx, op.a, op.off)
		if vfs.Errno(err) == syscall.ENOENT {
			return nil
		}
		return err
	case "patch":
		h, err := f.OpenFile(ctx, op.a, os.O_RDWR, 0)
		if vfs.Errno(err) == syscall.ENOENT {
			return nil
		}
		if err != nil {
			return err
		}
		if _, err := h.WriteAt(op.data, op.off); err != nil {
			h.Close()
			return err
		}
		return h.Close()
	}
	return fmt.Errorf("unknown op %q", op.kind)
}

var crashOpts = vfs.Options{ChunkSize: 16 << 10, DirtyBytes: 256 << 10}

func crashChild(db string) {
	ctx := context.Background()
	opts := crashOpts
	if os.Getenv(crashSmallEnv) != "" {
		opts.CheckpointBytes = 256 << 10
	}
	f, err := vfs.Open(ctx, db, opts)
	if err != nil {
		fmt.Println("ERR", err)
		return
	}
	w := bufio.NewWriter(os.Stdout)
	deferred := os.Getenv(crashDeferEnv) != ""
	if deferred {
		f = f.WithCommitDelay(2 * time.Millisecond)
	}
	if os.Getenv(crashBatchEnv) != "" {
		deferred = true
		f = f.WithBatching(2 * time.Millisecond)
	}
	for i := 0; ; i++ {
		if err := crashOpN(i).run(ctx, f); err != nil {
			fmt.Fprintln(w, "ERR", i, err)
			w.Flush()
			return
		}
		if deferred {
			fmt.Fprintln(w, "APPLIED", i)
			if i%7 != 6 {
				w.Flush()
				continue
			}
			if err := f.Commit(ctx); err != nil {
				fmt.Fprintln(w, "ERR", i, err)
				w.Flush()
				return
			}
		}
		fmt.Fprintln(w, "ACK", i)
		w.Flush()
	}
}

func dumpStore(t *testing.T, f *vfs.FS) map[string]string {
	t.Helper()
	ctx := context.Background()
	out := map[string]string{}
	var walk func(dir string)
	walk = func(dir string) {
		ents, err := f.ReadDir(ctx, dir)
		if err != nil {
			t.Fatalf("readdir %s: %v", dir, err)
		}
		for _, e := range ents {
			p := filepath.Join(dir, e.Name)
			if e.Mode&vfs.S_IFMT == vfs.S_IFDIR {
				out[p] = "<dir>"
				walk(p)
				continue
			}
			b, err := f.ReadFile(ctx, p)
			if err != nil {
				t.Fatalf("read %s: %v", p, err)
			}
			out[p] = string(b)
		}
	}
	walk("/")
	return out
}

func diffModels(got, want map[string]string) string {
	var keys []string
	for k := range got {
		keys = append(keys, k)
	}
	for k := range want {
		if _, ok := got[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		g, gok := got[k]
		w, wok := want[k]
		if gok != wok || g != w {
			fmt.Fprintf(&b, "  %s: got %v/%d bytes, want %v/%d bytes\n", k, gok, len(g), wok, len(w))
		}
	}
	return b.String()
}

func TestCrashKill9(t *testing.T) { crashRounds(t, false, false) }

// TestCrashKill9Reclaim is TestCrashKill9 with a store that checkpoints and
// gives free pages back (incremental vacuum) all the time.
func TestCrashKill9Reclaim(t *testing.T) { crashRounds(t, false, true) }

// TestCrashKill9Deferred is TestCrashKill9 with deferred commits: what survives
// is the state after some prefix of the operations, at least every one a
// Commit acknowledged, at most the one in flight.
func TestCrashKill9Deferred(t *testing.T) { crashRounds(t, true, false) }

// TestCrashKill9Batched is TestCrashKill9Deferred with the handle an
// execution gets (FS.WithBatching): files written through handles and closed
// without Sync are durable only at the next commit, and what survives is
// still a prefix of the operations (the last one possibly in part).
func TestCrashKill9Batched(t *testing.T) { crashRoundsEnv(t, true, false, crashBatchEnv) }

func crashRounds(t *testing.T, deferred, small bool) { crashRoundsEnv(t, deferred, small, "") }

// partialState reports whether got is want with op partly applied: op is
// several steps (a create, writes, a flush) and a commit can land between
// them.
func partialState(got, want map[string]string, op crashOp) bool {
	if op.kind != "append" && op.kind != "writeh" {
		return false
	}
	g, ok := got[op.a]
	if !ok {
		return false
	}
	old := want[op.a]
	switch op.kind {
	case "append":
		if !strings.HasPrefix(g, old) || !strings.HasPrefix(old+string(op.data), g) {
			return false
		}
	case "writeh":
		if g != old && !strings.HasPrefix(string(op.data), g) {
			return false
		}
	}
	cand := make(map[string]string, len(want)+1)
	for k, v := range want {
		cand[k] = v
	}
	cand[op.a] = g
	return diffModels(got, cand) == ""
}

// killRounds is how many rounds a crash test kills its child: n, or short
// under go test -short.
func killRounds(n, short int) int {
	if testing.Short() {
		return short
	}
	return n
}

// killChild runs this test binary again as a child, with env (KEY=VALUE
// pairs) added to its environment, and passes line each line the child
// prints, in order. The clock starts at the first line for which line
// returns true; delay after it the child is killed (SIGKILL), and line gets,
// with killed set, what the child printed before it died. killChild returns
// when the child is gone and line has had all its lines.
func killChild(t *testing.T, env []string, delay time.Duration, line func(l string, killed bool) (start bool)) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	timer := time.NewTimer(time.Hour)
	started := false
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				cmd.Wait()
				return
			}
			if line(l, false) && !started {
				started = true
				timer.Reset(delay)
			}
		case <-timer.C:
			cmd.Process.Signal(syscall.SIGKILL)
			for l := range lines {
				line(l, true)
			}
			cmd.Wait()
			return
		}
	}
}

func crashRoundsEnv(t *testing.T, deferred, small bool, env string) {
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	for round := 0; round < killRounds(8, 3); round++ {
		db := filepath.Join(t.TempDir(), "crash.db")
		childEnv := []string{crashEnv + "=" + db}
		if deferred {
			childEnv = append(childEnv, crashDeferEnv+"=1")
		}
		if small {
			childEnv = append(childEnv, crashSmallEnv+"=1")
		}
		if env != "" {
			childEnv = append(childEnv, env+"=1")
		}
		delay := time.Duration(rng.IntN(400)) * time.Millisecond
		acked, applied := -1, -1
		// The clock starts at the first acknowledgement, not at process start.
		killChild(t, childEnv, delay, func(l string, killed bool) bool {
			if !killed && strings.HasPrefix(l, "ERR") {
				t.Fatalf("child: %s", l)
			}
			if n, err := strconv.Atoi(strings.TrimPrefix(l, "APPLIED ")); err == nil {
				applied = n
				return false
			}
			if n, err := strconv.Atoi(strings.TrimPrefix(l, "ACK ")); err == nil {
				acked = n
				return true
			}
			return false
		})
		applied = max(applied, acked)

		f, err := vfs.Open(context.Background(), db, crashOpts)
		if err != nil {
			t.Fatalf("round %d: reopen after kill at op %d: %v", round, acked, err)
		}
		rep, err := f.Check(context.Background())
		if err != nil || !rep.OK() {
			t.Fatalf("round %d: check after kill: %v %v", round, err, rep.Problems)
		}
		got := dumpStore(t, f)
		// The store must hold the state after operations 0..k, for some k from
		// the last acknowledged one to the one in flight (without deferred
		// commits, acknowledged = applied).
		want := map[string]string{}
		for i := 0; i <= acked; i++ {
			crashOpN(i).apply(want)
		}
		var diff string
		var survived int
		for k := acked; ; k++ {
			if d := diffModels(got, want); d == "" {
				survived = k
				break
			} else if diff == "" {
				diff = d
			}
			if k > applied {
				t.Fatalf("round %d (killed after %v, %d ops acknowledged, %d applied): store differs from every state it may hold; from the acknowledged one:\n%s",
					round, delay, acked+1, applied+1, diff)
			}
			// An operation of several steps (create, writes, a flush or a
			// sync) may have landed in part: the commit that made the state
			// after op k durable can hold the first steps of op k+1.
			op := crashOpN(k + 1)
			if partialState(got, want, op) {
				survived = k
				break
			}
			op.apply(want)
		}
		// The store stays usable.
		if err := f.WriteFile(context.Background(), "/after-crash", []byte("ok"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		t.Logf("round %d: killed after %v with %d ops acknowledged (%d applied); the first %d survived; store consistent", round, delay, acked+1, applied+1, survived+1)
	}
}
