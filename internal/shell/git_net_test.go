package shell

import (
	"context"
	"fmt"
	"net/http/cgi"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/desk-dev/desk/internal/egress"
	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/testenv"
	"github.com/desk-dev/desk/internal/vfs"
)

// TestGit_Net clones over smart HTTP (the real git http-backend) through
// the execution's network (run.Job.Net, an egress.Client): the allowed
// host clones, another is refused with the policy's explanation, and no
// network refuses http remotes.
func TestGit_Net(t *testing.T) {
	backend := "/usr/lib/git-core/git-http-backend"
	if _, err := os.Stat(backend); err != nil {
		testenv.Need(t, testenv.Shells, fmt.Errorf("no %s (make test-setup installs git)", backend))
	}
	dir := t.TempDir()
	work, bare := filepath.Join(dir, "work"), filepath.Join(dir, "git", "repo.git")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "README"), []byte("over desk's egress\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range [][]string{
		{"git", "init", "-q", "-b", "main", work},
		{"git", "-C", work, "add", "README"},
		{"git", "-C", work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "readme"},
		{"sh", "-c", "echo b > " + work + "/b && git -C " + work + " add b"},
		{"git", "-C", work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "second", "-m", "with a body"},
		{"git", "clone", "-q", "--bare", work, bare},
	} {
		if out, err := exec.Command(c[0], c[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", c, err, out)
		}
	}
	srv := httptest.NewServer(&cgi.Handler{Path: backend, Env: []string{"GIT_PROJECT_ROOT=" + filepath.Join(dir, "git"), "GIT_HTTP_EXPORT_ALL=1"}})
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	n, err := egress.New(egress.Options{Workspace: "w"})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	p, err := egress.Parse("allow git.test=127.0.0.1:" + u.Port())
	if err != nil {
		t.Fatal(err)
	}
	net := n.Client(egress.Layer{Source: egress.SourceWorkspace, Policy: p})
	f := newStore(t, map[string]string{"/work/.keep": ""})
	if err := f.MkdirAll(context.Background(), "/home", 0o755); err != nil {
		t.Fatal(err)
	}
	runNet := func(script string, rt *egress.Client) result {
		var out, errb testenv.SyncBuffer
		job := &run.Job{ID: "test", Backend: "shell", Source: script, Cwd: "/work", Env: map[string]string{"HOME": "/home", "DESK_EXEC_ID": "test"},
			Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, FS: f}
		if rt != nil {
			job.Net = rt
		}
		o, err := New(Options{}).Run(vfs.WithActor(context.Background(), "test"), job)
		return result{out.String(), errb.String(), o.ExitCode, err}
	}
	if r := runNet("git clone -q http://git.test:"+u.Port()+"/repo.git r && cat r/README", net); r.exit != 0 || r.stdout != "over desk's egress\n" {
		t.Fatalf("clone: exit %d %q %q %v", r.exit, r.stdout, r.stderr, r.err)
	}
	// A shallow clone's history ends at its boundary, which log shows as a
	// root (its diff against nothing), as the real git's clone does.
	const show = " && git log --stat && git log --format=%s%n%b"
	host := filepath.Join(dir, "shallow")
	want, err := exec.Command("sh", "-c", "git clone -q --depth 1 "+srv.URL+"/repo.git "+host+" && cd "+host+show).CombinedOutput()
	if err != nil {
		t.Fatalf("real git: %v\n%s", err, want)
	}
	if r := runNet("git clone -q --depth 1 http://git.test:"+u.Port()+"/repo.git sh && cd sh"+show, net); r.exit != 0 || r.stdout != string(want) {
		t.Errorf("shallow clone and log: exit %d, stdout %q, stderr %q; the real git's %q", r.exit, r.stdout, r.stderr, want)
	}
	if r := runNet("git clone -q http://other.test:"+u.Port()+"/repo.git r2", net); r.exit == 0 || !strings.Contains(r.stderr, "host other.test is not allowed by the workspace's policy") || !strings.Contains(r.stderr, "desk ws policy w --allow") {
		t.Fatalf("clone of another host: exit %d %q", r.exit, r.stderr)
	}
	if r := runNet("git clone -q http://git.test:"+u.Port()+"/repo.git r3", nil); r.exit == 0 || !strings.Contains(r.stderr, "network") {
		t.Fatalf("clone without network: exit %d %q", r.exit, r.stderr)
	}
}
