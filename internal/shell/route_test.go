package shell

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

func TestBackend_Route(t *testing.T) {
	b := New(Options{})
	for _, tc := range []struct {
		name, script string
		backends     []string
		want         string
		wantErr      string
	}{
		{"builtins and commands", "cd /tmp && ls -la | grep x; echo done", nil, "shell", ""},
		{"a function the script defines", "f() { npm_like; }; f", []string{"shell", "sandbox"}, "sandbox", ""},
		{"defined function is known", "build() { echo b; }; build", nil, "shell", ""},
		{"npm goes to the sandbox", "npm install && ls", []string{"shell", "sandbox"}, "sandbox", ""},
		{"no sandbox: a clear error", "npm install; make; npm test", []string{"shell"}, "", "npm, make: not a command of the shell backend"},
		{"wrappers: env", "env FOO=1 python3 x.py", []string{"shell", "sandbox"}, "sandbox", ""},
		{"wrappers: xargs", "find . -name '*.go' | xargs -n 1 gofmt", []string{"shell", "sandbox"}, "sandbox", ""},
		{"wrappers: timeout of a shell command", "timeout 5 sort f", nil, "shell", ""},
		{"wrappers: timeout with a signal", "timeout -s KILL 5 sort f", nil, "shell", ""},
		{"wrappers: nice, stdbuf, nohup of shell commands", "nice -n 5 sort f | stdbuf -o L grep x; nohup wc -l f", nil, "shell", ""},
		{"wrappers: xargs with option values", "ls | xargs -n 1 -P 2 wc -l", nil, "shell", ""},
		{"wrappers: nohup of a sandbox command", "nohup python3 serve.py", []string{"shell", "sandbox"}, "sandbox", ""},
		{"wrappers: stdbuf of a sandbox command", "stdbuf -oL make", []string{"shell"}, "", "make: not a command of the shell backend"},
		{"quoted names are static", `'ls' "cat" f`, nil, "shell", ""},
		{"a computed name cannot be known", `cmd=ls; $cmd -la`, nil, "shell", ""},
		{"absolute path of a known command", "/usr/bin/ls -la", nil, "shell", ""},
		{"absolute path elsewhere", "/opt/tool/run", []string{"shell", "sandbox"}, "sandbox", ""},
		{"command substitution", "x=$(make -v)", []string{"shell", "sandbox"}, "sandbox", ""},
		{"git runs in the shell", "git add -A && git commit -am msg && x=$(git status --porcelain)", []string{"shell", "sandbox"}, "shell", ""},
		{"git with global options", "git -C sub -c user.name=x log --oneline", []string{"shell", "sandbox"}, "shell", ""},
		{"a git subcommand the shell lacks goes to the sandbox", "git status && git rebase -i HEAD~2", []string{"shell", "sandbox"}, "sandbox", ""},
		{"no sandbox: the git subcommand is named", "git bisect start", []string{"shell"}, "", "git bisect: not a command of the shell backend"},
		{"syntax error goes to the shell", "if then fi (", nil, "shell", ""},
		{"curl of a remote host runs in the shell", "curl -s https://example.com/x | jq .", []string{"shell", "sandbox"}, "shell", ""},
		{"curl of localhost goes to the sandbox", "curl -s localhost:3000/health", []string{"shell", "sandbox"}, "sandbox", ""},
		{"wget of 127.0.0.1 goes to the sandbox", "wget -qO- http://127.0.0.1:8000/", []string{"shell", "sandbox"}, "sandbox", ""},
		{"curl of [::1] goes to the sandbox", "curl 'http://[::1]:8080/' -o out", []string{"shell", "sandbox"}, "sandbox", ""},
		{"curl of localhost without a sandbox stays in the shell", "curl -s http://localhost/", []string{"shell"}, "shell", ""},
		{"a host named like localhost is not", "curl -s http://localhost.example.com/", []string{"shell", "sandbox"}, "shell", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, reason, err := b.Route(tc.script, tc.backends)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want || reason == "" {
				t.Fatalf("Route = %q (%q), %v; want %q", got, reason, err, tc.want)
			}
		})
	}
}

// TestCommandNames: the wrappers' options, with and without an argument
// of their own, are skipped to the command they run.
func TestCommandNames(t *testing.T) {
	for _, tc := range []struct{ script, want string }{
		{"ls -la", "ls"},
		{"nohup make", "nohup make"},
		{"nohup -- make -j2", "nohup make"},
		{"nice make", "nice make"},
		{"nice -n 5 make", "nice make"},
		{"nice -n5 make", "nice make"},
		{"nice -5 make", "nice make"},
		{"nice --adjustment 5 make", "nice make"},
		{"nice --adjustment=5 make", "nice make"},
		{"nice", "nice"},
		{"stdbuf -oL make", "stdbuf make"},
		{"stdbuf -o L -e 0 make", "stdbuf make"},
		{"stdbuf --output L make", "stdbuf make"},
		{"stdbuf --output=L -i0 make", "stdbuf make"},
		{"timeout 5 make", "timeout make"},
		{"timeout -s KILL 5 make", "timeout make"},
		{"timeout --signal KILL -k 1 5 make", "timeout make"},
		{"timeout --preserve-status 5 make", "timeout make"},
		{"xargs -n 1 make", "xargs make"},
		{"xargs -I {} -P 4 make {}", "xargs make"},
		{"xargs -0r make", "xargs make"},
		{"env -u X -C /tmp A=1 make", "env make"},
		{"exec -a name make", "exec make"},
		{"/usr/bin/env A=1 make", "/usr/bin/env make"},
		{"timeout 5 nice -n 1 stdbuf -oL nohup env A=1 xargs -n 2 make", "timeout nice stdbuf nohup env xargs make"},
		{"nice $cmd x", "nice"},
	} {
		f, err := syntax.NewParser().Parse(strings.NewReader(tc.script), "")
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Join(commandNames(f.Stmts[0].Cmd.(*syntax.CallExpr).Args), " ")
		if got != tc.want {
			t.Errorf("commandNames(%q) = %q, want %q", tc.script, got, tc.want)
		}
	}
}
