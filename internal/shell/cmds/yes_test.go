package cmds

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// yesLimitWriter fails after n bytes, as a closed pipe does.
type yesLimitWriter struct {
	n   int
	buf strings.Builder
}

func (w *yesLimitWriter) Write(p []byte) (int, error) {
	if w.buf.Len() >= w.n {
		return 0, errors.New("broken pipe")
	}
	return w.buf.Write(p)
}

func TestYes(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{{[]string{"yes"}, "y\ny\n"}, {[]string{"yes", "a", "b"}, "a b\na b\n"}} {
		w := &yesLimitWriter{n: 1}
		env := &Env{Ctx: context.Background(), Stdout: w}
		if rc := Yes(env, c.args); rc != 1 || !strings.HasPrefix(w.buf.String(), c.want) {
			t.Fatalf("%v: %d %q", c.args, rc, w.buf.String()[:10])
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int)
	out := &yesWriting{started: make(chan struct{})}
	go func() { done <- Yes(&Env{Ctx: ctx, Stdout: out}, []string{"yes"}) }()
	<-out.started // yes is writing
	cancel()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Fatal("yes did not stop on cancel")
	}
}

// yesWriting discards what is written and closes started on the first write.
type yesWriting struct {
	once    sync.Once
	started chan struct{}
}

func (w *yesWriting) Write(p []byte) (int, error) {
	w.once.Do(func() { close(w.started) })
	return len(p), nil
}

func TestWhoamiHostname(t *testing.T) {
	runTextRows(t, []textRow{
		{args: []string{"hostname"}, out: "workspace\n", skip: "the host name"},
		{args: []string{"hostname"}, env: map[string]string{"HOSTNAME": "box"}, out: "box\n", skip: "the host name"},
	})
}
