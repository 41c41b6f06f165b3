package shell

// grepFiles is the work tree of the git grep, blame and describe rows.
var grepFiles = map[string]string{
	"a.txt":      "alpha\nBeta beta\nfoo_bar foo\nfoo\nlast foo",
	"b.txt":      "one\ntwo\nthree foo\nfour\nfive\nsix\nseven foo\neight\nnine\nten\n",
	"dir/c.txt":  "gamma\nfoo\n",
	"dir/d.go":   "package d\n\nfunc F() int {\n\treturn 1 // foo\n}\n",
	"space x.md": "foo bar\n",
	"bin.dat":    "bin\x00foo\nmore\n",
	"tab.txt":    "a\tb\r\nFOO\r\n",
	"ünï.txt":    "foo\n",
	"empty":      "",
}

// SG starts a repository holding grepFiles, committed once.
const SG = "git init -q && git add -A && git commit -qm init && "

// gitGrepTable holds the differential rows of git grep; they join gitTable.
var gitGrepTable = []gitRow{
	{name: "grep", script: SG + "git grep foo"},
	{name: "grep -n", script: SG + "git grep -n foo"},
	{name: "grep no match", script: SG + "git grep nomatch; echo $?"},
	{name: "grep -i -w", script: SG + "git grep -i -w foo; git grep -w bar; git grep -iw BETA"},
	{name: "grep -w retries", script: SG + "echo 'xfoo foo' > w && echo 'xa ab' >> w && echo 'foofoo' >> w && git add w && git grep -w -e foo -e 'a.*' w"},
	{name: "grep -v", script: SG + "git grep -v foo; echo $?"},
	{name: "grep -l -L", script: SG + "git grep -l foo; git grep -L foo; git grep --name-only gamma; git grep -L nomatch; echo $?"},
	{name: "grep -L all matched", script: SG + "git grep -L -e . -e '^$'; echo $?"},
	{name: "grep -c", script: SG + "git grep -c foo; git grep -c -v foo; git grep -ch foo; git grep --count nomatch; echo $?"},
	{name: "grep -h -H", script: SG + "git grep -h foo; git grep -H gamma"},
	{name: "grep -o", script: SG + "git grep -o -n 'fo*'; git grep -o -i 'b[a-z]*'"},
	{name: "grep -e several", script: SG + "git grep -n -e gamma -e alpha -e seven"},
	{name: "grep -E", script: SG + "git grep -E 'fo+|gam{2}a'; git grep -E 'x(y'; echo $?"},
	{name: "grep -F", script: SG + "git grep -F 'a.t'; echo $?; git grep -F -n 'foo_bar'; git grep -F -e '(' ; echo $?"},
	{name: "grep -G basic", script: SG + "git grep 'fo\\+' dir; git grep 'gam\\{2\\}a'; git grep 'x\\|gamma'; git grep '^foo$'; git grep 'a\\('; echo $?"},
	{name: "grep -q", script: SG + "git grep -q foo; echo $?; git grep -q nomatch; echo $?"},
	{name: "grep -m", script: SG + "git grep -m1 foo; git grep --max-count=1 -c foo; git grep -m 2 -n foo b.txt a.txt"},
	{name: "grep -I and binary", script: SG + "git grep -I foo; git grep -c foo bin.dat; git grep -a -c foo bin.dat; git grep -o foo bin.dat; git grep -l more"},
	{name: "grep --cached", script: SG + "echo newfoo >> dir/c.txt && git grep foo dir; git grep --cached foo dir; git add dir && git grep --cached newfoo"},
	{name: "grep work tree content of tracked files", script: SG + "echo foo > untracked && rm b.txt && echo zzz > a.txt && git grep -l foo; git grep zzz"},
	{name: "grep --untracked", script: SG + "echo '*.log' > .gitignore && echo foo > x.log && echo foo > u.txt && git grep -l --untracked foo; git grep -l --untracked --no-exclude-standard foo"},
	{name: "grep tree-ish", script: SG + "echo foo2 >> a.txt && git commit -qam two && git grep -n foo HEAD~1 -- a.txt; git grep foo2 HEAD; git grep -c foo HEAD~1 HEAD -- dir"},
	{name: "grep tree-ish path", script: SG + "git grep foo HEAD:dir; git grep -l foo HEAD -- '*.go'"},
	{name: "grep pathspecs", script: SG + "git grep -n foo -- '*.txt'; git grep -l foo -- dir; git grep -l foo dir a.txt; git grep -l foo -- ':!dir' ':!*.txt'"},
	{name: "grep in a subdirectory", script: SG + "cd dir && git grep foo; git grep foo -- ..; git grep --full-name foo; git grep foo HEAD; git grep foo HEAD -- ../a.txt"},
	{name: "grep option after pattern", script: SG + "git grep foo -n; echo $?"},
	{name: "grep missing path", script: SG + "git grep foo nosuch; echo $?; git grep foo -- nosuch; echo $?"},
	{name: "grep no pattern", script: SG + "git grep; echo $?; git grep -n; echo $?"},
	{name: "grep unknown option", script: SG + "git grep --frob x; echo $?"},
	{name: "grep cached and tree", script: SG + "git grep --cached foo HEAD; echo $?"},
	{name: "grep context", script: SG + "git grep -n -C1 foo b.txt; git grep -A1 gamma; git grep -B2 -n seven; git grep -2 three b.txt dir"},
	{name: "grep context joins", script: SG + "git grep -n -A3 -e three -e seven b.txt"},
	{name: "grep -m with context", script: SG + "git grep -m1 -A2 foo b.txt; git grep -n -m1 -A5 foo b.txt; git grep -n -m2 -A1 -B1 foo b.txt"},
	{name: "grep -z", script: SG + "git grep -lz foo | tr '\\0' '@'; echo; git grep -z gamma | tr '\\0' '@'"},
	{name: "grep --column", script: SG + "git grep --column -n foo a.txt"},
	{name: "grep -f", script: SG + "printf 'gamma\\nseven\\n' > ../pats && git grep -f ../pats && printf 'alpha\\n' | git grep -f - -e gamma"},
	{name: "grep empty pattern", script: SG + "git grep -c ''"},
	{name: "grep heading break", script: SG + "git grep --heading --break -n foo dir b.txt"},
	{name: "grep no repository", script: "git grep foo; echo $?"},
	{name: "grep --no-index", script: "git grep --no-index -l foo; echo $?"},
	{name: "grep -w anchored", script: SG + "git grep -w '^foo' a.txt; git grep -w -E 'foo$' a.txt; git grep -c -w -E '\\bfoo' a.txt"},
	{name: "grep -P", script: SG + "git grep -P '\\d+|fo{2}\\b' -- a.txt b.txt"},
	{name: "grep symlink and executable", script: SG + "ln -s a.txt link && chmod +x b.txt && git add -A && git grep -l foo"},
	{name: "grep a conflicted file", script: SG + "git checkout -qb t && echo foo-t > a.txt && git commit -qam t && git checkout -q master && echo foo-m > a.txt && git commit -qam m && git merge -q t; git grep -n foo a.txt; git grep --cached -c foo"},
	{name: "grep --and is not here", script: SG + "git grep -e foo --and -e bar; echo $?", diverge: "--and, --or, --not and --all-match are not implemented: the shell backend's git says so (status 128)"},
	{name: "grep unborn", script: "git init -q && git add a.txt && git grep -n foo"},
}

func init() {
	for i := range gitGrepTable {
		if gitGrepTable[i].files == nil {
			gitGrepTable[i].files = grepFiles
		}
	}
	gitTable = append(gitTable, gitGrepTable...)
}
