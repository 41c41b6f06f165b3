package fusefs_test

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
	"strconv"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/desk-dev/desk/internal/fusefs"
	"github.com/desk-dev/desk/internal/testenv"
	"github.com/desk-dev/desk/internal/vfs"
)

// crashData is the content of file i of the crash test.
func crashData(i int) []byte {
	size := []int{0, 10, 5000, 70000, 300000, 5 << 20}[i%6]
	h := sha256.Sum256([]byte(strconv.Itoa(i)))
	return bytes.Repeat(h[:], size/32+1)[:size]
}

// crashServe is the crash test's server (TestMain's "crash-serve" helper):
// it mounts the store in dir at dir/mnt, says "READY" and serves until it is
// killed. The writer is another process (the test), as a sandbox's programs
// are: a process writing through its own mount can block in a request to
// itself, which a kill cannot end.
func crashServe(dir string) error {
	ctx := context.Background()
	store, err := vfs.Open(ctx, filepath.Join(dir, "ws.db"), vfs.Options{})
	if err != nil {
		return err
	}
	if _, err := fusefs.Mount(ctx, store, filepath.Join(dir, "mnt"), fusefs.Options{}); err != nil {
		return err
	}
	fmt.Println("READY")
	select {}
}

// TestCrash_CloseAndFsync kills the server (SIGKILL) at moments spread over
// a stream of writes through its mount by another process, then reopens its
// store: every file whose close or fsync returned is there with all its data
// (the durability contract: written data is durable at close and fsync, and
// the file's name with it), a file whose write returned but that was not
// closed holds a prefix of its data or nothing, and Check finds no problem.
// File i is closed without fsync when i%3 is 0, fsynced then closed when it
// is 1, and closed after a second write when it is 2; a sixth of the files
// are 5 MiB, so that kills land in the store's commits inside a file too.
func TestCrash_CloseAndFsync(t *testing.T) {
	testenv.NeedFUSE(t)
	r := rand.New(rand.NewPCG(7, 21))
	for range 4 {
		after := 1 + r.IntN(40) // acknowledged steps before the kill is sent
		t.Run(fmt.Sprintf("kill-after-%d", after), func(t *testing.T) { crashOnce(t, after) })
	}
}

func crashOnce(t *testing.T, after int) {
	dir := t.TempDir()
	mnt := filepath.Join(dir, "mnt")
	must(t, "mkdir", os.Mkdir(mnt, 0o755))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a hang guard
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$", dir)
	cmd.Env = append(os.Environ(), helperEnv+"=crash-serve")
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	must(t, "pipe", err)
	must(t, "start", cmd.Start())
	defer unix.Unmount(mnt, unix.MNT_DETACH) // a dead server's mount stays until unmounted
	if sc := bufio.NewScanner(stdout); !sc.Scan() || sc.Text() != "READY" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the server did not start: %q %v", sc.Text(), sc.Err())
	}

	// Write until the mount fails; the kill is sent from another goroutine
	// once `after` steps were acknowledged, so it lands while writes go on.
	var wrote, durable []int
	acks := make(chan struct{}, 1<<16)
	killed := make(chan struct{})
	go func() {
		defer close(killed)
		for range after {
			<-acks
		}
		cmd.Process.Signal(syscall.SIGKILL)
	}()
	ack := func() { acks <- struct{}{} }
	var werr error
	for i := 0; werr == nil && i < 1<<14; i++ {
		data := crashData(i)
		f, err := os.Create(filepath.Join(mnt, fmt.Sprintf("f%d", i)))
		if err != nil {
			werr = err
			break
		}
		if _, werr = f.Write(data[:len(data)/2]); werr == nil {
			_, werr = f.Write(data[len(data)/2:])
		}
		if werr == nil {
			wrote = append(wrote, i)
			ack()
			if i%3 == 1 {
				werr = f.Sync()
			}
		}
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr == nil {
			durable = append(durable, i)
			ack()
		}
	}
	<-killed
	cmd.Wait()
	if werr == nil {
		t.Fatal("every write succeeded: the kill did not happen")
	}
	if err := unix.Unmount(mnt, unix.MNT_DETACH); err != nil {
		t.Errorf("unmount the dead server's mount: %v", err)
	}

	store, err := vfs.Open(context.Background(), filepath.Join(dir, "ws.db"), vfs.Options{})
	must(t, "reopen", err)
	defer store.Close()
	bg := context.Background()
	isDurable := map[int]bool{}
	for _, i := range durable {
		isDurable[i] = true
	}
	for _, i := range wrote {
		want := crashData(i)
		got, err := store.ReadFile(bg, fmt.Sprintf("/f%d", i))
		if isDurable[i] {
			if err != nil {
				t.Errorf("f%d (closed before the kill): %v", i, err)
			} else if !bytes.Equal(got, want) {
				t.Errorf("f%d (closed before the kill): %d bytes, want %d", i, len(got), len(want))
			}
			continue
		}
		if err == nil && !bytes.HasPrefix(want, got) {
			t.Errorf("f%d (written, not closed): %d bytes that are not a prefix of the %d written", i, len(got), len(want))
		}
	}
	rep, err := store.Check(bg)
	must(t, "check", err)
	if !rep.OK() {
		t.Errorf("check after the kill: %v", rep.Problems)
	}
	t.Logf("kill sent after %d acknowledgements: %d files written, %d closed (the writer stopped on %v)", after, len(wrote), len(durable), werr)
}
