package shell

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/desk-dev/desk/internal/gitws/gittest"
	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/shell/shelltest"
	"github.com/desk-dev/desk/internal/testenv"
	"github.com/desk-dev/desk/internal/vfs"
)

// gitRow is one git session: a script run once through the shell backend
// on the store and once by bash and the real git on a temporary copy of
// the same files; stdout, the exit status and the repository left behind
// (git fsck, the commits and trees of every ref, git status --porcelain,
// git ls-files -s, all read by the real git) must agree.
type gitRow struct {
	name    string
	script  string
	files   map[string]string // the work tree before the script ("x/" a directory)
	diverge string            // a known divergence: the reason (the test requires the two to differ)
}

// gitEnv is the environment of both runs: a fixed identity and fixed dates
// make commit ids deterministic.
var gitEnv = map[string]string{
	"GIT_AUTHOR_NAME": "A U Thor", "GIT_AUTHOR_EMAIL": "author@example.com",
	"GIT_COMMITTER_NAME": "C O Mitter", "GIT_COMMITTER_EMAIL": "committer@example.com",
	"GIT_AUTHOR_DATE": "@1700000000 +0100", "GIT_COMMITTER_DATE": "@1700000000 +0100",
	"LANG": "C.UTF-8", "TZ": "UTC",
}

// gitFiles is the default work tree of a row.
var gitFiles = map[string]string{
	"a.txt":      "alpha\n",
	"b.txt":      "one\ntwo\nthree\nfour\nfive\nsix\nseven\n",
	"dir/c.txt":  "gamma\n",
	"dir/d.go":   "package d\n\nfunc F() int {\n\treturn 1\n}\n",
	"space x.md": "sp\n",
}

// S starts a repository holding the files, committed once.
const S = "git init -q && git add -A && git commit -qm init && "

var gitTable = []gitRow{
	// init
	{name: "init", script: "git init"},
	{name: "init quiet and status", script: "git init -q && git status"},
	{name: "init -b", script: "git init -q -b main && git status --porcelain -b"},
	{name: "init dir", script: "git init -q sub && ls -a sub/.git | grep -c HEAD"},
	{name: "reinit", script: "git init -q && git init"},
	{name: "not a repository", script: "git status"},
	{name: "not a repository log", script: "git log"},
	// status
	{name: "status porcelain untracked", script: "git init -q && git status --porcelain"},
	{name: "status short", script: "git init -q && git status -s"},
	{name: "status -uall", script: "git init -q && git status --porcelain -uall"},
	{name: "status -uno", script: "git init -q && git status --porcelain -uno"},
	{name: "status clean long", script: S + "git status"},
	{name: "status clean porcelain", script: S + "git status --porcelain"},
	{name: "status modified", script: S + "echo more >> a.txt && git status --porcelain"},
	{name: "status modified long", script: S + "echo more >> a.txt && git status"},
	{name: "status staged long", script: S + "echo more >> a.txt && git add a.txt && git status"},
	{name: "status deleted", script: S + "rm b.txt && git status --porcelain && git status"},
	{name: "status staged and unstaged", script: S + "echo 1 >> a.txt && git add a.txt && echo 2 >> a.txt && git status --porcelain"},
	{name: "status new file staged", script: S + "echo n > n.txt && git add n.txt && git status && git status -s"},
	{name: "status untracked dir", script: S + "mkdir -p u/v && echo x > u/v/w && git status --porcelain && git status --porcelain -uall"},
	{name: "status untracked in tracked dir", script: S + "echo x > dir/new && git status --porcelain"},
	{name: "status from a subdirectory", script: S + "echo m >> a.txt && echo n > dir/n && cd dir && git status -s && git status --porcelain"},
	{name: "status gitignore", script: "printf '*.log\\nbuild/\\n' > .gitignore && echo l > x.log && mkdir build && echo o > build/o && git init -q && git status --porcelain"},
	{name: "status ignored", script: "printf '*.log\\n' > .gitignore && echo l > x.log && git init -q && git status --porcelain --ignored"},
	{name: "status negated ignore", script: "printf '*.log\\n!keep.log\\n' > .gitignore && echo l > x.log && echo k > keep.log && git init -q && git status --porcelain"},
	{name: "status branch", script: S + "git status -sb"},
	{name: "status no commits branch", script: "git init -q && git status -sb"},
	{name: "status pathspec", script: S + "echo 1 >> a.txt && echo 2 >> b.txt && git status --porcelain a.txt"},
	{name: "status after rm --cached", script: S + "git rm -q --cached a.txt && git status --porcelain"},
	{name: "status rename staged", script: S + "git mv a.txt z.txt && git status --porcelain && git status"},
	{name: "status porcelain v2", script: S + "echo 1 >> a.txt && git add a.txt && echo n > n && git status --porcelain=v2"},
	{name: "status porcelain v2 branch", script: S + "git status --porcelain=v2 --branch"},
	{name: "status mode change", script: S + "chmod +x a.txt && git status --porcelain"},
	// add
	{name: "add nothing", script: "git init -q && git add; echo $?"},
	{name: "add file", script: "git init -q && git add a.txt && git status --porcelain"},
	{name: "add dot", script: "git init -q && git add . && git status --porcelain"},
	{name: "add -A", script: S + "rm a.txt && echo n > n && echo m >> b.txt && git add -A && git status --porcelain"},
	{name: "add -u", script: S + "rm a.txt && echo n > n && echo m >> b.txt && git add -u && git status --porcelain"},
	{name: "add dir", script: "git init -q && git add dir && git status --porcelain"},
	{name: "add glob", script: "git init -q && git add '*.txt' && git status --porcelain"},
	{name: "add missing", script: "git init -q && git add nope"},
	{name: "add ignored", script: "printf '*.log\\n' > .gitignore && echo l > x.log && git init -q && git add x.log; echo $?; git status --porcelain"},
	{name: "add ignored -f", script: "printf '*.log\\n' > .gitignore && echo l > x.log && git init -q && git add -f x.log && git status --porcelain"},
	{name: "add removal of named file", script: S + "rm a.txt && git add a.txt && git status --porcelain"},
	{name: "add -n", script: "git init -q && git add -n a.txt b.txt"},
	{name: "add from subdirectory", script: "git init -q && cd dir && git add . && cd .. && git status --porcelain"},
	{name: "add -v", script: "git init -q && git add -v a.txt"},
	{name: "add symlink", script: "ln -s a.txt link && git init -q && git add -A && git commit -qm l && git ls-files -s link && git cat-file -p HEAD:link"},
	{name: "add executable", script: "chmod +x a.txt && git init -q && git add a.txt && git ls-files -s"},
	// commit
	{name: "commit root", script: "git init -q && git add -A && git commit -m first"},
	{name: "commit second", script: S + "echo m >> a.txt && git commit -am second"},
	{name: "commit nothing", script: S + "git commit -m nothing"},
	{name: "commit nothing staged", script: S + "echo m >> a.txt && git commit -m x"},
	{name: "commit untracked only", script: S + "echo n > n && git commit -m x"},
	{name: "commit -a with deletion", script: S + "rm a.txt && git commit -qam del && git log --format=%s --stat"},
	{name: "commit allow empty", script: S + "git commit --allow-empty -m empty && git log --oneline"},
	{name: "commit amend", script: S + "echo m >> a.txt && git commit -qam two && git commit --amend -m again && git log --oneline"},
	{name: "commit amend no edit", script: S + "echo m >> a.txt && git add a.txt && git commit -q --amend --no-edit && git log --format='%s %an'"},
	{name: "commit author", script: "git init -q && git add -A && git commit -q --author 'Other Person <other@example.com>' -m x && git log --format='%an <%ae> %cn <%ce>'"},
	{name: "commit multiple -m", script: "git init -q && git add -A && git commit -q -m subject -m 'body line' && git log --format=%B"},
	{name: "log and show of a body", script: "git init -q && git add -A && git commit -q -m subject -m 'para one' -m 'para two' && git log && git show -s && git log --format=fuller"},
	{name: "commit -F", script: "printf 'from file\\n\\nbody\\n' > ../msg 2>/dev/null || printf 'from file\\n\\nbody\\n' > /tmp/msg; git init -q && git add a.txt && git commit -q -F /tmp/msg && git log --format=%s%n%b"},
	{name: "commit empty message", script: "git init -q && git add -A && git commit -m ''"},
	{name: "commit message cleanup", script: "git init -q && git add -A && git commit -q -m '  spaced  \n\n\n\nbody   \n\n' && git log --format=%B | od -c | head -3"},
	{name: "commit paths only", script: S + "echo 1 >> a.txt && echo 2 >> b.txt && git commit -q -m only a.txt && git status --porcelain"},
	{name: "commit quiet", script: S + "echo 1 >> a.txt && git commit -qam q"},
	{name: "commit delete and create", script: S + "git rm -q a.txt && echo n > n && git add n && git commit -m dc"},
	{name: "commit rename summary", script: S + "git mv dir/c.txt dir/e.txt && git commit -m mv"},
	{name: "commit mode change summary", script: S + "chmod +x a.txt && git commit -am mode"},
	{name: "commit no identity", script: "unset GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL; git init -q && git add -A && git -c user.useConfigOnly=true commit -m x 2>&1 | head -1"},
	{name: "commit identity from config", script: "unset GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL; git init -q && git config user.name 'Cfg Name' && git config user.email cfg@example.com && git add -A && git commit -qm x && git log --format='%an %ae %cn'"},
	{name: "commit subject with newlines", script: "git init -q && git add -A && git commit -q -m 'line one\nline two' && git log --format=%s"},
	// log
	{name: "log", script: S + "echo m >> a.txt && git commit -qam second && git log"},
	{name: "log oneline", script: S + "echo m >> a.txt && git commit -qam second && git log --oneline"},
	{name: "empty format with names", script: S + "echo m >> a.txt && echo n > n.txt && git add -A && git commit -qm second && git show --name-only --format= HEAD && git log --format= --name-only && git log --pretty= --name-status && git show --stat --format= && git log --format= && echo end"},
	{name: "empty format with patch", script: S + "echo m >> a.txt && git commit -qam second && git log --format= -p -1 && git show --format= HEAD~1 --stat"},
	{name: "format: without terminator", script: S + "echo m >> a.txt && git commit -qam second && git log --format=format:%s && echo && git log --pretty=tformat:%h%x09%s --name-only | sed 's/^[0-9a-f]*\t/H\t/'"},
	{name: "pretty unknown is fatal", script: S + "git show --pretty=bogus; echo $?; git log --pretty=nope; echo $?"},
	{name: "log -n", script: S + "echo m >> a.txt && git commit -qam second && git log -n 1 --oneline && git log -1 --format=%s"},
	{name: "log format placeholders", script: S + "git log --format='%H|%h|%T|%t|%P|%an|%ae|%ad|%at|%aI|%cn|%ce|%cd|%ct|%cI|%s|%%'"},
	{name: "log pretty format", script: S + "git log --pretty=format:'%h %s' && echo && git log --pretty=oneline"},
	{name: "log paths", script: S + "echo m >> a.txt && git commit -qam a && echo m >> b.txt && git commit -qam b && git log --format=%s -- a.txt"},
	{name: "log stat", script: S + "echo m >> a.txt && git commit -qam second && git log --stat"},
	{name: "log patch", script: S + "echo m >> a.txt && git commit -qam second && git log -p -1"},
	{name: "log range", script: S + "echo m >> a.txt && git commit -qam two && echo m >> a.txt && git commit -qam three && git log --format=%s HEAD~2..HEAD && git log --format=%s HEAD~1.."},
	{name: "open ranges", script: S + "echo m >> a.txt && git commit -qam two && git log --format=%s ..HEAD~1 && git diff HEAD~1.. && git diff ..HEAD~1 --stat && git format-patch --stdout HEAD~1.. | grep '^Subject'"},
	{name: "log reverse", script: S + "echo m >> a.txt && git commit -qam two && git log --reverse --format=%s"},
	{name: "log no commits", script: "git init -q && git log"},
	{name: "log bad revision", script: S + "git log nope"},
	{name: "log short full", script: S + "git log --pretty=short && git log --pretty=full && git log --pretty=fuller"},
	{name: "log raw", script: S + "git log --pretty=raw"},
	{name: "log name-only", script: S + "echo m >> a.txt && git commit -qam two && git log --name-only --format=%s && git log --name-status --format=%s"},
	{name: "log all branches", script: S + "git branch other && git checkout -q other && echo o >> a.txt && git commit -qam other && git checkout -q master && git log --all --format=%s"},
	// diff
	{name: "diff worktree", script: S + "echo more >> a.txt && git diff"},
	{name: "diff none", script: S + "git diff; echo $?"},
	{name: "diff middle change funcname", script: S + "sed -i 's/return 1/return 2/' dir/d.go && git diff"},
	{name: "diff hunks", script: S + "sed -i 's/two/TWO/; s/six/SIX/' b.txt && git diff && git diff -U1"},
	{name: "diff cached", script: S + "echo more >> a.txt && git add a.txt && git diff && git diff --cached && git diff --staged"},
	{name: "diff cached new file", script: S + "echo n > n && git add n && git diff --cached"},
	{name: "diff cached root", script: "git init -q && git add a.txt && git diff --cached"},
	{name: "diff deleted", script: S + "rm a.txt && git diff"},
	{name: "diff two revisions", script: S + "echo m >> a.txt && git commit -qam two && git diff HEAD~1 HEAD && git diff HEAD~1..HEAD"},
	{name: "diff revision vs worktree", script: S + "echo m >> a.txt && git commit -qam two && echo x >> b.txt && git diff HEAD~1"},
	{name: "diff stat", script: S + "echo m >> a.txt && sed -i 's/two/2/' b.txt && git diff --stat"},
	{name: "diff stat cached new", script: S + "echo n > n && git add n && git diff --cached --stat"},
	{name: "diff numstat shortstat", script: S + "echo m >> a.txt && git diff --numstat && git diff --shortstat"},
	{name: "diff name-only name-status", script: S + "echo m >> a.txt && rm b.txt && git diff --name-only && git diff --name-status"},
	{name: "diff paths", script: S + "echo m >> a.txt && echo m >> b.txt && git diff -- b.txt && git diff b.txt"},
	{name: "diff exit-code", script: S + "echo m >> a.txt && git diff --exit-code >/dev/null; echo $?; git diff --quiet; echo $?"},
	{name: "diff no newline", script: S + "printf 'alpha' > a.txt && git diff"},
	{name: "diff binary", script: S + "printf 'a\\0b' > bin && git add bin && git commit -qm bin && printf 'a\\0c' > bin && git diff && git diff --stat"},
	{name: "diff mode", script: S + "chmod +x a.txt && git diff"},
	{name: "diff space in name", script: S + "echo m >> 'space x.md' && git diff && git diff --stat"},
	{name: "diff subdirectory", script: S + "echo m >> dir/c.txt && cd dir && git diff && git diff --name-only"},
	{name: "diff empty file added", script: S + ": > e && git add e && git diff --cached"},
	{name: "diff rename cached", script: S + "git mv a.txt z.txt && git diff --cached --name-status"},
	{name: "diff bad revision", script: S + "git diff nope"},
	{name: "diff three dots", script: S + "git branch b && echo m >> a.txt && git commit -qam m && git checkout -q b && echo x >> b.txt && git commit -qam x && git diff master...b --stat"},
	// show
	{name: "show", script: S + "echo m >> a.txt && git commit -qam second && git show"},
	{name: "show root", script: "git init -q && git add a.txt && git commit -qm r && git show"},
	{name: "show stat", script: S + "echo m >> a.txt && git commit -qam second && git show --stat"},
	{name: "show blob", script: S + "git show HEAD:a.txt && git show HEAD:dir/c.txt"},
	{name: "show format", script: S + "git show -s --format='%h %s'"},
	{name: "show name-only", script: S + "echo m >> a.txt && git commit -qam second && git show --name-only --format=%s"},
	// branch
	{name: "branch list", script: S + "git branch b1 && git branch b2 && git branch"},
	{name: "branch show-current", script: S + "git branch --show-current"},
	{name: "branch delete", script: S + "git branch b1 && git branch -d b1 && git branch"},
	{name: "branch delete unmerged", script: S + "git checkout -qb b1 && echo m >> a.txt && git commit -qam m && git checkout -q master && git branch -d b1; echo $?; git branch -D b1"},
	{name: "branch exists", script: S + "git branch b1 && git branch b1"},
	{name: "branch invalid", script: S + "git branch 'a b'"},
	{name: "branch delete missing", script: S + "git branch -d nope"},
	{name: "branch delete current", script: S + "git branch -d master"},
	{name: "branch rename", script: S + "git branch -m main && git branch && git status -sb"},
	{name: "branch verbose", script: S + "git branch b1 && git branch -v"},
	{name: "branch start point", script: S + "echo m >> a.txt && git commit -qam two && git branch old HEAD~1 && git log --format=%s old"},
	{name: "branch no commits", script: "git init -q && git branch x"},
	// checkout and switch
	{name: "checkout -b", script: S + "git checkout -b feature && git branch --show-current"},
	{name: "checkout branch", script: S + "git branch b1 && git checkout b1 && git status -sb"},
	{name: "checkout changes files", script: S + "git checkout -qb b1 && echo b1 > a.txt && rm b.txt && echo n > n && git add -A && git commit -qm b1 && git checkout -q master && cat a.txt && ls && git status --porcelain"},
	{name: "checkout carries changes", script: S + "git branch b1 && echo m >> a.txt && git checkout b1 && git status --porcelain"},
	{name: "checkout refuses overwrite", script: S + "git checkout -qb b1 && echo b1 > a.txt && git commit -qam b1 && git checkout -q master && echo local > a.txt && git checkout b1; echo $?; cat a.txt"},
	{name: "checkout untracked overwrite", script: S + "git checkout -qb b1 && echo n > n && git add n && git commit -qm n && git checkout -q master && echo mine > n && git checkout b1; echo $?"},
	{name: "checkout path", script: S + "echo m >> a.txt && git checkout -- a.txt && git status --porcelain && cat a.txt"},
	{name: "checkout path from revision", script: S + "echo m >> a.txt && git commit -qam two && git checkout HEAD~1 -- a.txt && git status --porcelain"},
	{name: "checkout a tag detaches at its name", script: S + "git tag v1 && git tag -a -m ann v2 && echo m >> a.txt && git commit -qam two && git checkout -q v1 && git status | head -1 && git branch && git checkout -q v2 && git status | head -1 && git branch | head -1"},
	{name: "detached from, after a commit", script: S + "git tag v1 && git checkout -q v1 && echo m >> a.txt && git commit -qam two && git status | head -1 && git branch | head -1"},
	{name: "checkout --detach and back with -", script: S + "git checkout -qb b1 && git checkout -q --detach && git status | head -1 && git checkout -q - && git branch --show-current && git checkout -q master && git checkout -q - && git branch --show-current"},
	{name: "checkout - to a commit", script: S + "echo m >> a.txt && git commit -qam two && git checkout -q HEAD~1 && git checkout -q master && git checkout -q - && git status | head -1 && git log -1 --format=%s"},
	{name: "switch --detach a branch", script: S + "git switch -q --detach master && git status | head -1 && git branch | head -1"},
	{name: "head reflog of checkouts", script: S + "git checkout -qb b1 && git checkout -q master && git tag v1 && git checkout -q v1 && cut -f2 .git/logs/HEAD | grep ^checkout"},
	{name: "reflog of the everyday commands", script: S + "echo m >> a.txt && git commit -qam two && git commit -q --amend -m two2 && git branch b1 && git branch b2 HEAD~1 && git checkout -qb b3 && echo c >> a.txt && git commit -qam three && git checkout -q master && git merge -q b3 && git reset -q --hard HEAD~1 && git merge -q --no-ff -m mm b3 && git branch -m b2 b22 && git reflog && git reflog show b22 && git reflog show b1 && git reflog -n 2 && git reflog -1 b3 && git reflog show HEAD@{3} | head -2 && git reflog exists b3 && ! git reflog exists nope"},
	{name: "reflog names a missing ref", script: S + "git reflog show nope"},
	{name: "reflog after stash and revert", script: S + "echo m >> a.txt && git stash -q && git stash pop -q && git commit -qam two && git revert --no-edit HEAD >/dev/null && git cherry-pick HEAD~1 >/dev/null && git reflog"},
	{name: "reset to a reflog entry", script: S + "echo m >> a.txt && git commit -qam two && git reset -q --hard HEAD~1 && git reset -q --hard HEAD@{1} && git log --format=%s && git reflog -2"},
	{name: "clone and pull reflogs", script: S + "git clone -q --bare . ../rb.git && git clone -q ../rb.git ../rc && echo m >> a.txt && git commit -qam two && git push -q ../rb.git master && cd ../rc && git pull -q && git reflog | sed 's|from .*/rb.git|from ROOT/rb.git|' && git reflog show master | sed 's|from .*/rb.git|from ROOT/rb.git|'"},
	{name: "fetch reflogs of remote-tracking refs", script: S + "git clone -q --bare . ../rb.git && git clone -q ../rb.git ../rc && echo m >> a.txt && git commit -qam two && git push -q ../rb.git master master:feat && cd ../rc && git fetch -q && git reflog show origin/master && git reflog show origin/feat && cd ../work && echo n >> a.txt && git commit -qam three && git push -q ../rb.git master && cd ../rc && git fetch origin && git reflog show origin/master"},
	{name: "fetch a forced update", script: S + "echo m >> a.txt && git commit -qam two && git clone -q --bare . ../rb.git && git clone -q ../rb.git ../rc && git reset -q --hard HEAD~1 && echo o >> a.txt && git commit -qam other && git push -qf ../rb.git master && cd ../rc && git fetch 2>&1 | sed 's|From .*/rb.git|From ROOT/rb.git|' && git reflog show origin/master && git log --format=%s origin/master"},
	{name: "fetch a named branch", script: S + "git clone -q --bare . ../rb.git && git clone -q ../rb.git ../rc && echo m >> a.txt && git commit -qam two && git push -q ../rb.git master && cd ../rc && git fetch origin master 2>&1 | sed 's|From .*/rb.git|From ROOT/rb.git|' && git rev-parse FETCH_HEAD origin/master && git fetch origin master 2>&1 | sed 's|From .*/rb.git|From ROOT/rb.git|'"},
	{name: "FETCH_HEAD and merging it", script: S + "git clone -q --bare . ../rb.git && git clone -q ../rb.git ../rc && echo m >> a.txt && git commit -qam two && git push -q ../rb.git master master:a-long-branch-name && cd ../rc && git fetch 2>&1 | sed 's|From .*/rb|From ROOT/rb|' && sed 's|of .*/rb$|of ROOT/rb|' .git/FETCH_HEAD && git merge -q FETCH_HEAD && git log --format=%s && git checkout -q FETCH_HEAD && git status | head -1"},
	{name: "push -q and a forced push", script: S + "git clone -q --bare . ../rb.git && echo m >> a.txt && git commit -qam two && git push -q ../rb.git master 2>&1 && git commit -q --amend -m two2 && git push ../rb.git master 2>&1 | tail -1; git push -f ../rb.git master 2>&1 | sed 's|To .*|To R|' && git push ../rb.git master 2>&1 && git push -q ../rb.git master 2>&1"},
	{name: "clone --depth of a local path", script: S + "echo m >> a.txt && git commit -qam two && git clone --depth 1 . ../sh 2>&1 | sed 's|ROOT|R|' && git -C ../sh log --format=%s && ! test -f ../sh/.git/shallow"},
	{name: "clone --depth not a number", script: S + "git clone --depth 0 . ../x; echo $?; git clone --depth abc . ../y; echo $?; git clone --depth=-1 . ../z; echo $?; test ! -e ../x && test ! -e ../y"},
	{name: "checkout detached", script: S + "echo m >> a.txt && git commit -qam two && git checkout -q HEAD~1 && git status | head -1 && git branch"},
	{name: "checkout missing", script: S + "git checkout nope"},
	{name: "checkout already on", script: S + "git checkout master"},
	{name: "switch", script: S + "git switch -c s1 && git switch master && git branch"},
	{name: "switch missing", script: S + "git switch nope"},
	{name: "switch dash", script: S + "git switch -qc s1 && git switch -q master && git switch - && git branch --show-current"},
	// reset and restore
	{name: "reset mixed", script: S + "echo m >> a.txt && git add a.txt && git reset && git status --porcelain"},
	{name: "reset path", script: S + "echo m >> a.txt && git add a.txt && git reset -q a.txt && git status --porcelain"},
	{name: "reset soft", script: S + "echo m >> a.txt && git commit -qam two && git reset --soft HEAD~1 && git status --porcelain && git log --oneline"},
	{name: "reset hard", script: S + "echo m >> a.txt && git commit -qam two && echo x >> b.txt && git reset --hard HEAD~1 && git status --porcelain && cat a.txt"},
	{name: "reset hard removes added", script: S + "echo n > n && git add n && git reset --hard && ls"},
	{name: "reset bad revision", script: S + "git reset nope"},
	{name: "restore", script: S + "echo m >> a.txt && git restore a.txt && git status --porcelain"},
	{name: "restore staged", script: S + "echo m >> a.txt && git add a.txt && git restore --staged a.txt && git status --porcelain"},
	{name: "restore source", script: S + "echo m >> a.txt && git commit -qam two && git restore --source=HEAD~1 a.txt && git status --porcelain && cat a.txt"},
	{name: "restore missing", script: S + "git restore nope"},
	// rm and mv
	{name: "rm", script: S + "git rm a.txt && git status --porcelain && ls"},
	{name: "rm cached", script: S + "git rm --cached a.txt && git status --porcelain && ls a.txt"},
	{name: "rm modified", script: S + "echo m >> a.txt && git rm a.txt; echo $?"},
	{name: "rm -r", script: S + "git rm -r -q dir && git status --porcelain && ls"},
	{name: "rm dir without -r", script: S + "git rm dir"},
	{name: "rm missing", script: S + "git rm nope"},
	{name: "mv", script: S + "git mv a.txt z.txt && git status --porcelain && ls"},
	{name: "mv into dir", script: S + "git mv a.txt dir && git status --porcelain"},
	{name: "mv untracked", script: S + "echo n > n && git mv n m"},
	{name: "mv exists", script: S + "git mv a.txt b.txt"},
	// tag
	{name: "tag lightweight", script: S + "git tag v1 && git tag && git rev-parse v1 && git show -s --format=%s v1"},
	{name: "tag annotated", script: S + "git tag -a v1 -m 'release one' && git cat-file -t v1 && git show v1 | head -5"},
	{name: "tag delete", script: S + "git tag v1 && git tag -d v1 && git tag"},
	{name: "tag exists", script: S + "git tag v1 && git tag v1"},
	{name: "tag list pattern", script: S + "git tag v1 && git tag v2 && git tag x && git tag -l 'v*'"},
	// rev-parse, ls-files, cat-file
	{name: "rev-parse", script: S + "echo m >> a.txt && git commit -qam two && git rev-parse HEAD HEAD~1 HEAD^ master && git rev-parse --short HEAD"},
	{name: "rev-parse tree and path", script: S + "git rev-parse HEAD^{tree} HEAD:a.txt HEAD:dir"},
	{name: "rev-parse abbrev-ref", script: S + "git rev-parse --abbrev-ref HEAD"},
	{name: "rev-parse toplevel", script: S + "cd dir && git rev-parse --show-toplevel --show-prefix --is-inside-work-tree"},
	{name: "rev-parse git-dir", script: S + "git rev-parse --git-dir"},
	{name: "rev-parse verify bad", script: S + "git rev-parse --verify nope; echo $?; git rev-parse -q --verify nope; echo $?"},
	{name: "rev-parse unknown", script: S + "git rev-parse nope"},
	{name: "rev-parse short hash", script: S + "h=$(git rev-parse HEAD) && git rev-parse ${h:0:8}"},
	{name: "ls-files", script: S + "git ls-files && git ls-files -s"},
	{name: "ls-files others", script: S + "echo n > n && mkdir u && echo x > u/x && git ls-files -o && git ls-files -o --exclude-standard --directory"},
	{name: "ls-files modified deleted", script: S + "echo m >> a.txt && rm b.txt && git ls-files -m && git ls-files -d"},
	{name: "ls-files subdir", script: S + "cd dir && git ls-files"},
	{name: "ls-files error-unmatch", script: S + "git ls-files --error-unmatch nope"},
	{name: "cat-file", script: S + "git cat-file -t HEAD && git cat-file -p HEAD^{tree} && git cat-file -s HEAD:a.txt && git cat-file blob HEAD:a.txt && git cat-file -e HEAD; echo $?"},
	{name: "cat-file commit", script: S + "git cat-file -p HEAD"},
	{name: "hash-object", script: "git init -q && git hash-object a.txt && echo hi | git hash-object --stdin"},
	{name: "write-tree", script: "git init -q && git add -A && git write-tree", diverge: "gitws writes no cache-tree extension to the index, so git fsck calls the tree write-tree stored dangling (real git keeps it reachable through the index)"},
	// config
	{name: "config set get", script: "git init -q && git config user.name 'X Y' && git config user.name && git config --get user.name"},
	{name: "config missing", script: "git init -q && git config nope.key; echo $?"},
	{name: "config list", script: "git init -q && git config --local --list"},
	{name: "config global", script: "git config --global user.email g@example.com && git config --global user.email && git init -q && git config user.email"},
	{name: "config unset", script: "git init -q && git config a.b c && git config --unset a.b && git config a.b; echo $?"},
	{name: "config subsection", script: "git init -q && git config remote.origin.url /x && git config remote.origin.url && git config --local --list"},
	{name: "config bad key", script: "git init -q && git config nokey; echo $?"},
	// clean
	{name: "clean refuses", script: S + "echo n > n && git clean"},
	{name: "clean -n", script: S + "echo n > n && mkdir u && echo x > u/x && git clean -n && git clean -nd"},
	{name: "clean -fd", script: S + "echo n > n && mkdir u && echo x > u/x && git clean -fd && git status --porcelain"},
	{name: "clean -x", script: "printf '*.log\\n' > .gitignore && echo l > x.log && git init -q && git add -A && git commit -qm i && git clean -n && git clean -nx"},
	// merge
	{name: "merge fast-forward", script: S + "git checkout -qb f && echo m >> a.txt && git commit -qam f && git checkout -q master && git merge f && git log --oneline"},
	{name: "merge up to date", script: S + "git branch f && git merge f"},
	{name: "merge three-way clean", script: S + "git checkout -qb f && echo f >> a.txt && git commit -qam f && git checkout -q master && echo m >> b.txt && git commit -qam m && git merge f && git log --format=%s"},
	{name: "merge conflict", script: S + "git checkout -qb f && echo f > a.txt && git commit -qam f && git checkout -q master && echo m > a.txt && git commit -qam m && git merge f; echo $?; cat a.txt; git status --porcelain; git ls-files -s a.txt"},
	{name: "merge conflict resolve", script: S + "git checkout -qb f && echo f > a.txt && git commit -qam f && git checkout -q master && echo m > a.txt && git commit -qam m && git merge -q f; echo r > a.txt && git add a.txt && git commit -q --no-edit && git log --format=%s -1 && git status --porcelain"},
	{name: "merge conflict middle", script: S + "git checkout -qb f && sed -i 's/four/FOUR/' b.txt && git commit -qam f && git checkout -q master && sed -i 's/four/4/' b.txt && git commit -qam m && git merge f; cat b.txt"},
	{name: "merge abort", script: S + "git checkout -qb f && echo f > a.txt && git commit -qam f && git checkout -q master && echo m > a.txt && git commit -qam m && git merge -q f; git merge --abort && git status --porcelain && cat a.txt"},
	{name: "merge no-ff", script: S + "git checkout -qb f && echo m >> a.txt && git commit -qam f && git checkout -q master && git merge -q --no-ff f && git log --format=%s"},
	{name: "merge ff-only refused", script: S + "git checkout -qb f && echo f >> a.txt && git commit -qam f && git checkout -q master && echo m >> b.txt && git commit -qam m && git merge --ff-only f"},
	{name: "merge bad", script: S + "git merge nope"},
	// remote
	{name: "remote add list", script: "git init -q && git remote add origin /somewhere && git remote && git remote -v && git remote get-url origin"},
	{name: "remote remove", script: "git init -q && git remote add origin /x && git remote remove origin && git remote"},
	{name: "remote remove missing", script: "git init -q && git remote remove nope"},
	{name: "remote add exists", script: "git init -q && git remote add o /x && git remote add o /y"},
	// local remotes in the same workspace
	{name: "clone local", script: S + "cd .. && git clone -q work copy && cd copy && git log --oneline && git status -sb && git branch -a && git remote -v | sed 's|/.*work|ROOT/work|'"},
	{name: "clone a tag", script: S + "git tag v1 && git tag -a -m ann v2 && echo m >> a.txt && git commit -qam two && cd .. && git clone -q --branch v2 work copy && cd copy && git status | head -1 && git log --format=%s && git branch -a && git rev-parse HEAD v2^{commit} | uniq | wc -l"},
	{name: "clone a tag, single branch", script: S + "git tag v1 && echo m >> a.txt && git commit -qam two && cd .. && git clone -q --single-branch -b v1 work copy && cd copy && git log --format=%s && git branch -a && git config --get-all remote.origin.fetch && git tag"},
	{name: "clone a missing branch or tag", script: S + "cd .. && git clone -q -b nope work copy; echo $?; ls copy 2>&1 | head -1"},
	{name: "clone into existing", script: S + "mkdir -p x && echo f > x/f && git clone . x"},
	{name: "clone bare and push", script: S + "git clone -q --bare . ../bare.git && git remote add origin ../bare.git && echo m >> a.txt && git commit -qam two && git push -q origin master && git --git-dir=../bare.git log --format=%s"},
	{name: "fetch and merge", script: S + "git clone -q . ../c2 && echo m >> a.txt && git commit -qam two && cd ../c2 && git fetch -q && git status -sb && git merge -q origin/master && git log --format=%s"},
	{name: "pull ff", script: S + "git clone -q . ../c3 && echo m >> a.txt && git commit -qam two && cd ../c3 && git pull -q && git log --format=%s && cat a.txt"},
	{name: "push non-fast-forward", script: S + "git clone -q --bare . ../b2.git && git clone -q ../b2.git ../c4 && cd ../c4 && echo x >> a.txt && git commit -qam x && git push -q && cd ../work && git remote add origin ../b2.git && echo y >> b.txt && git commit -qam y && git push origin master 2>&1 | grep -c rejected"},
	{name: "push new branch and delete", script: S + "git clone -q --bare . ../b3.git && git remote add origin ../b3.git && git push -q origin master:feature && git --git-dir=../b3.git branch && git push -q origin --delete feature && git --git-dir=../b3.git branch"},
	{name: "push tags", script: S + "git clone -q --bare . ../b4.git && git remote add origin ../b4.git && git tag v1 && git push -q origin v1 && git --git-dir=../b4.git tag"},
	{name: "push set-upstream", script: S + "git clone -q --bare . ../b5.git && git remote add origin ../b5.git && git push -q -u origin master && git status -sb"},
	{name: "push no upstream", script: S + "git clone -q --bare . ../b6.git && git remote add origin ../b6.git && git push"},
	// global options
	{name: "-C", script: "git init -q sub && git -C sub status --porcelain && git -C sub rev-parse --show-toplevel | sed 's|.*/||'"},
	{name: "-c", script: S + "git -c user.name=Override commit -q --allow-empty -m e && git log -1 --format=%an"},
	{name: "unknown subcommand", script: "git frobnicate"},
	{name: "unknown option", script: S + "git status --frobnicate"},
}

// runGitShell runs a row's script through the shell backend on a store
// holding the row's files under /work.
func runGitShell(t *testing.T, r gitRow) (*vfs.FS, result) {
	t.Helper()
	f := newStore(t, r.files)
	if err := f.MkdirAll(context.Background(), "/home", 0o755); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": "/home", "DESK_EXEC_ID": "test"}
	for k, v := range gitEnv {
		env[k] = v
	}
	var out, errb testenv.SyncBuffer
	job := &run.Job{ID: "test", Backend: "shell", Source: r.script, Cwd: "/work", Env: env,
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, FS: f}
	o, err := New(Options{}).Run(vfs.WithActor(context.Background(), "test"), job)
	return f, result{out.String(), errb.String(), o.ExitCode, err}
}

// runGitHost runs a row's script by bash and the real git in dir/work.
func runGitHost(t *testing.T, gitBin string, r gitRow, dir string) result {
	t.Helper()
	work := filepath.Join(dir, "work")
	home := filepath.Join(dir, "home")
	for _, d := range []string{work, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	shelltest.WriteHostFixture(t, work, r.files)
	cmd := exec.Command("bash", "-c", r.script)
	cmd.Dir = work
	cmd.Env = []string{"PATH=" + filepath.Dir(gitBin) + ":/usr/bin:/bin", "HOME=" + home, "GIT_CONFIG_NOSYSTEM=1"}
	for k, v := range gitEnv {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	res := result{}
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatal(err)
		}
		res.exit = ee.ExitCode()
	}
	res.stdout = strings.ReplaceAll(out.String(), dir, "")
	res.stderr = strings.ReplaceAll(errb.String(), dir, "")
	return res
}

// repoState is what the real git says of the repository in dir: fsck, the
// commits and trees of every ref, status and the index.
func repoState(t *testing.T, gitBin, dir string) string {
	t.Helper()
	if _, err := os.Stat(filepath.Join(dir, ".git")); err != nil {
		return "(no repository)\n"
	}
	var sb strings.Builder
	for _, args := range [][]string{
		{"fsck", "--no-progress", "--strict"},
		{"for-each-ref", "--format=%(refname) %(objectname) %(*objectname)"},
		{"log", "--all", "--format=%H%n%T"},
		{"status", "--porcelain"},
		{"ls-files", "-s"},
		{"symbolic-ref", "-q", "HEAD"},
	} {
		cmd := exec.Command(gitBin, args...)
		cmd.Dir = dir
		cmd.Env = []string{"HOME=" + dir, "GIT_CONFIG_NOSYSTEM=1", "PATH=/usr/bin:/bin"}
		out, err := cmd.CombinedOutput()
		fmt.Fprintf(&sb, "$ git %s (%v)\n%s", strings.Join(args, " "), err, out)
	}
	return sb.String()
}

func gitRows() []gitRow {
	out := make([]gitRow, 0, len(gitTable))
	for _, r := range gitTable {
		if r.files == nil {
			r.files = gitFiles
		}
		out = append(out, r)
	}
	return out
}

// TestGit_differential runs every row both ways and compares.
func TestGit_differential(t *testing.T) {
	gitBin, err := exec.LookPath("git")
	if err != nil {
		testenv.Need(t, testenv.Shells, fmt.Errorf("find git: %w", err))
	}
	if _, err := exec.LookPath("bash"); err != nil {
		testenv.Need(t, testenv.Shells, fmt.Errorf("find bash: %w", err))
	}
	seen := map[string]bool{}
	diverging := 0
	rows := gitRows()
	for _, r := range rows {
		if seen[r.name] {
			t.Fatalf("duplicate row %q", r.name)
		}
		seen[r.name] = true
		t.Run(r.name, func(t *testing.T) {
			f, got := runGitShell(t, r)
			if got.err != nil {
				t.Fatalf("Run: %v", got.err)
			}
			dir := t.TempDir()
			want := runGitHost(t, gitBin, r, dir)
			exp := t.TempDir()
			gittest.Export(t, f, "/work", exp)
			gotState, wantState := repoState(t, gitBin, exp), repoState(t, gitBin, filepath.Join(dir, "work"))
			same := got.stdout == want.stdout && got.exit == want.exit && gotState == wantState
			if r.diverge != "" {
				diverging++
				if same {
					t.Errorf("marked as a divergence (%s), but the two agree", r.diverge)
				}
				return
			}
			if got.stdout != want.stdout {
				t.Errorf("stdout differs\n--- shell:\n%s--- git:\n%s--- shell stderr:\n%s--- git stderr:\n%s", got.stdout, want.stdout, got.stderr, want.stderr)
			}
			if got.exit != want.exit {
				t.Errorf("exit = %d, git %d\nshell stderr: %s\ngit stderr: %s", got.exit, want.exit, got.stderr, want.stderr)
			}
			if gotState != wantState {
				t.Errorf("repository state differs\n--- shell:\n%s--- git:\n%s", gotState, wantState)
			}
			if got.exit != 0 && want.exit != 0 {
				g, w := firstLine(got.stderr), firstLine(want.stderr)
				if g != w {
					t.Errorf("first line of stderr: shell %q, git %q", g, w)
				}
			}
		})
	}
	t.Logf("%d rows, %d known divergences", len(rows), diverging)
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}
