package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/desk-dev/desk/internal/run"
)

func TestDenyList(t *testing.T) {
	d, err := newDenyList([]string{"/etc/shadow", "/etc/ssh/ssh_host_*", "/var/lib/desk", "/root"})
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]bool{
		"/etc/shadow": true, "/etc/shadow-": false, "/etc/ssh/ssh_host_rsa_key": true, "/etc/ssh/ssh_config": false,
		"/var/lib/desk": true, "/var/lib/desk/x/y": true, "/var/lib/desktop": false, "/root/.bashrc": true, "/etc": false,
	} {
		if got := d.denied(p); got != want {
			t.Errorf("denied(%s) = %v, want %v", p, got, want)
		}
	}
	for p, want := range map[string]bool{"/etc": true, "/etc/ssh": true, "/var": true, "/var/lib": true, "/usr": false, "/etc/ssl": false, "/var/lib/desk": false} {
		if got := d.below(p); got != want {
			t.Errorf("below(%s) = %v, want %v", p, got, want)
		}
	}
	for _, bad := range []string{"etc/shadow", "/etc/[", ""} {
		if _, err := newDenyList([]string{bad}); err == nil {
			t.Errorf("newDenyList(%q) accepted", bad)
		}
	}
}

// TestUserland_HostPaths: the host's /etc, /opt and /var/lib are there,
// read-only, minus the deny list: the host's secrets and a server's data
// directory are absent (and the entries next to them present, so the test
// can tell), even when the data directory lies below a path the sandbox sees.
func TestUserland_HostPaths(t *testing.T) {
	t.Parallel()
	// A server's data directory below /opt, world-readable, and a sibling that
	// is not denied; a glob pattern denies host-key-like files next to a
	// visible file.
	base, err := os.MkdirTemp("/opt", "desk-test-userland-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{
		"data/ws.db": "store\n", "data/tokens.json": "secret\n", "other/visible": "ok\n",
		"ssh/ssh_host_ed25519_key": "key\n", "ssh/ssh_config": "conf\n",
	} {
		p := filepath.Join(base, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e := newEnv(t, Options{Deny: append(DefaultDeny(), filepath.Join(base, "data"), filepath.Join(base, "ssh/ssh_host_*"))})

	absent := []string{"/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/etc/sudoers.d", "/etc/machine-id", "/etc/ssl/private",
		"/root/.bashrc", "/var/lib/sudo", "/var/lib/private",
		filepath.Join(base, "data"), filepath.Join(base, "data/tokens.json"), filepath.Join(base, "ssh/ssh_host_ed25519_key")}
	for _, p := range absent {
		if res := e.run("test -e "+p+" || test -L "+p, run.ExecOptions{}); res.ExitCode == 0 {
			t.Errorf("%s is visible in the sandbox", p)
		}
		if res := e.run("cat "+p, run.ExecOptions{}); res.ExitCode == 0 || !strings.Contains(res.Stderr, "No such file") {
			t.Errorf("cat %s: exit %d, %q", p, res.ExitCode, res.Stderr)
		}
	}
	// The host's /etc/shadow exists, so its absence is the deny list's doing.
	if _, err := os.Stat("/etc/shadow"); err != nil {
		t.Fatalf("the host has no /etc/shadow: %v", err)
	}
	// What is next to them is there, with the host's content.
	if out := e.ok("cat " + filepath.Join(base, "other/visible") + " " + filepath.Join(base, "ssh/ssh_config")); out != "ok\nconf\n" {
		t.Errorf("the visible files read %q", out)
	}
	for _, p := range []string{"/etc/os-release", "/etc/ssl/certs", "/var/lib/dpkg/status", "/etc/debian_version"} {
		if _, err := os.Stat(p); err != nil {
			continue // not on this host
		}
		if res := e.run("test -r "+p, run.ExecOptions{}); res.ExitCode != 0 {
			t.Errorf("%s is missing in the sandbox", p)
		}
	}
	host, err := os.ReadFile("/etc/os-release")
	if err == nil {
		if out := e.ok("cat /etc/os-release"); out != string(host) {
			t.Errorf("/etc/os-release differs from the host's")
		}
	}
	// Read-only, every one of them.
	for _, p := range []string{"/etc/x", "/opt/x", filepath.Join(base, "other/x"), "/var/lib/x", "/var/lib/dpkg/x"} {
		if res := e.run("echo x > "+p, run.ExecOptions{}); res.ExitCode == 0 {
			t.Errorf("wrote %s", p)
		}
	}
	// The generated /etc files, not the host's.
	if out := e.ok("cut -d: -f1 /etc/passwd | tr '\\n' ' '"); out != "root nobody " {
		t.Errorf("/etc/passwd users: %q", out)
	}
	if out := e.ok("cat /etc/hostname"); out != "ws\n" {
		t.Errorf("/etc/hostname: %q", out)
	}
}

// TestUserland_PandocPDF: Debian's pandoc and TeX installed on the host turn
// Markdown into a PDF in the sandbox (pdflatex's format lives in /var/lib,
// its configuration in /etc), checked on the host with pdftotext.
func TestUserland_PandocPDF(t *testing.T) {
	t.Parallel()
	tool(t, "pandoc")
	tool(t, "pdflatex")
	pdftotext, err := exec.LookPath("pdftotext")
	if err != nil {
		tool(t, "pdftotext")
	}
	e := newEnv(t, Options{})
	md := "# A report\n\nThe sandbox made *this* PDF, with $e^{i\\pi} + 1 = 0$.\n\n- one item\n- another item\n"
	if err := os.WriteFile(filepath.Join(e.wsDir, "report.md"), []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	res := e.run("pandoc report.md -o report.pdf", run.ExecOptions{})
	if res.ExitCode != 0 {
		t.Fatalf("pandoc: exit %d\n%s%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	out, err := exec.Command(pdftotext, filepath.Join(e.wsDir, "report.pdf"), "-").CombinedOutput()
	if err != nil {
		t.Fatalf("pdftotext: %v\n%s", err, out)
	}
	text := string(out)
	for _, want := range []string{"A report", "The sandbox made this PDF", "one item", "another item"} {
		if !strings.Contains(text, want) {
			t.Errorf("the PDF's text lacks %q:\n%s", want, text)
		}
	}
}
