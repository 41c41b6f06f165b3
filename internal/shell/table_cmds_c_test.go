package shell

// tableCmdsC holds rows for od, split and csplit.
var tableCmdsC = []row{
	// $$, $PPID and BASHPID (the values are the execution's: TestPid)
	{name: "pid same in subshells", script: `[ "$$" = "$(echo $$)" ] && [ "$$" = "$( (echo $$) )" ] && echo $$ | { read -r p; [ "$p" = "$$" ] && echo same; }`, out: "same\n"},
	{name: "pid and ppid are numbers", script: `for p in "$$" "$PPID" "$((PPID))"; do case $p in ''|*[!0-9]*) echo bad;; *) echo num;; esac; done`, out: "num\nnum\nnum\n"},
	{name: "bashpid", script: `[ "$BASHPID" = "$$" ] && echo top; [ "$(echo $BASHPID)" != "$$" ] && echo sub-differs`, out: "sub-differs\n",
		diverge: "mvdan/sh v3.14.1 has no BASHPID: it is empty (bash: $$ in the main shell, a new pid in each subshell: top, sub-differs)"},
	// call frames (MaxCallDepth)
	{name: "exec redirection in a function", script: `f() { exec 2>/dev/null; }; f; echo err >&2; echo done`, out: "done\n", errSub: "err",
		diverge: "a function body is a call frame (a redirection, see MaxCallDepth), so exec's redirections made in a function last until it returns (bash: for the rest of the script, err is hidden)"},
	// seq formats infinities as C's printf does (width, flags, case)
	{name: "seq format inf", script: `seq -f '[%5g]' 1 inf inf | head -n 3; seq -f '[%-+6.1F]' 1 inf inf | head -n 2; seq -w 1 inf inf | head -n 2; seq -f '[%05.0e]' -1 -inf -inf | head -n 2`,
		out: "[    1]\n[  inf]\n[  inf]\n[+1.0  ]\n[+INF  ]\n1\ninf\n[-1e+00]\n[ -inf]\n", needs: []string{"seq", "head"}},
	// printf's field width and precision are bounded (MaxPrintfField)
	{name: "printf width at the limit", script: `printf '%1048576d' 1 | wc -c; printf '%.1048576d' 1 | wc -c`, out: "1048576\n1048576\n", needs: []string{"wc"}},
	{name: "printf width past the limit", script: `printf '%1048577d' 1 | wc -c; printf '%.*f' 1048577 1 | wc -c; /usr/bin/printf '%1048577s' x; echo " $?"`, out: "0\n0\n 1\n",
		errSub: "printf: %1048577d: Numerical result out of range: field width or precision over 1048576", needs: []string{"wc", "printf"},
		diverge: "a field wider than MaxPrintfField (1 MiB) is refused (bash and GNU printf build it: 1048577)"},
	// od
	{name: "od default", script: `od lines.txt`, out: "0000000 067157 005145 073564 005157 064164 062562 005145\n0000016\n", needs: []string{"od"}},
	{name: "od -c stdin", script: `printf 'hi\n' | od -c`, out: "0000000   h   i  \\n\n0000003\n", needs: []string{"od"}},
	{name: "od -An -tx1", script: `od -An -tx1 a.txt`, out: " 61 6c 70 68 61 0a\n", needs: []string{"od"}},
	{name: "od -Ax -tx1z", script: `od -Ax -tx1z lines.txt`, out: "000000 6f 6e 65 0a 74 77 6f 0a 74 68 72 65 65 0a        >one.two.three.<\n00000e\n", needs: []string{"od"}},
	{name: "od -j -N", script: `od -j 4 -N 3 -c lines.txt`, out: "0000004   t   w   o\n0000007\n", needs: []string{"od"}},
	{name: "od duplicate lines", script: `printf '%032d' 0 | od -tx1`, out: "0000000 30 30 30 30 30 30 30 30 30 30 30 30 30 30 30 30\n*\n0000040\n", needs: []string{"od"}},
	{name: "od -v", script: `printf '%032d' 0 | od -v -tx1 -An`, out: " 30 30 30 30 30 30 30 30 30 30 30 30 30 30 30 30\n 30 30 30 30 30 30 30 30 30 30 30 30 30 30 30 30\n", needs: []string{"od"}},
	{name: "od -w4 -d", script: `od -w4 -d lines.txt`, out: "0000000 28271  2661\n0000004 30580  2671\n0000010 26740 25970\n0000014  2661\n0000016\n", needs: []string{"od"}},
	{name: "od dash and file", script: `echo x | od -c - a.txt`, out: "0000000   x  \\n   a   l   p   h   a  \\n\n0000010\n", needs: []string{"od"}},
	{name: "od missing file", script: `od -c nope a.txt`, out: "0000000   a   l   p   h   a  \\n\n0000006\n", errSub: "od: nope: No such file or directory", exit: 1, needs: []string{"od"}},
	{name: "od bad type", script: `od -t d3 a.txt`, errSub: "od: invalid type string ‘d3’;\nthis system doesn't provide a 3-byte integral type", exit: 1, needs: []string{"od"}},
	{name: "od floats", script: `od -An -tf8 fl8`, out: "                      0.1                     -2.5\n", needs: []string{"od"},
		files: map[string]string{"fl8": "\x9a\x99\x99\x99\x99\x99\xb9\x3f\x00\x00\x00\x00\x00\x00\x04\xc0"}},
	// split
	{name: "split -l prefix", script: `split -l 1 lines.txt p; cat paa; ls p*`, out: "one\npaa\npab\npac\n", needs: []string{"split", "cat", "ls"}},
	{name: "split -b", script: `split -b 4 lines.txt; cat xab; ls x*`, out: "two\nxaa\nxab\nxac\nxad\n", needs: []string{"split", "cat", "ls"}},
	{name: "split -n", script: `split -n 2 lines.txt; cat xaa; echo; cat xab`, out: "one\ntwo\n\nthree\n", needs: []string{"split", "cat"}},
	{name: "split -n l/", script: `split -n l/2 lines.txt; cat xaa; echo =; cat xab`, out: "one\ntwo\n=\nthree\n", needs: []string{"split", "cat"}},
	{name: "split -n r/", script: `split -n r/2 lines.txt; cat xaa`, out: "one\nthree\n", needs: []string{"split", "cat"}},
	{name: "split -n K/N", script: `split -n 2/3 lines.txt`, out: "two\n", needs: []string{"split"}},
	{name: "split -d prefix", script: `split -d -l 2 lines.txt part_; ls part_*; cat part_01`, out: "part_00\npart_01\nthree\n", needs: []string{"split", "cat", "ls"}},
	{name: "split -a additional suffix", script: `split -a 3 --additional-suffix=.txt -l 2 lines.txt; ls x*`, out: "xaaa.txt\nxaab.txt\n", needs: []string{"split", "ls"}},
	{name: "split stdin", script: `printf 'a\nb\nc\n' | split -l 2 - in_; cat in_ab`, out: "c\n", needs: []string{"split", "cat"}},
	{name: "split -C", script: `split -C 8 lines.txt; cat xab; ls x*`, out: "three\nxaa\nxab\n", needs: []string{"split", "cat", "ls"}},
	{name: "split -e", script: `split -e -n 8 b.txt; ls x*`, out: "xaa\nxab\nxac\nxad\nxae\n", needs: []string{"split", "ls"}},
	{name: "split suffixes exhausted", script: `seq 30 | split -a 1 -l 1; echo $?; ls x* | wc -l`, out: "1\n26\n", errSub: "split: output file suffixes exhausted", needs: []string{"split", "seq", "ls", "wc"}},
	{name: "split bad count", script: `split -l 0 lines.txt`, errSub: "split: invalid number of lines: ‘0’: Numerical result out of range", exit: 1, needs: []string{"split"}},
	{name: "split missing input", script: `split nope`, errSub: "split: cannot open 'nope' for reading: No such file or directory", exit: 1, needs: []string{"split"}},
	// csplit
	{name: "csplit regex", script: `csplit lines.txt /two/; cat xx01`, out: "4\n10\ntwo\nthree\n", needs: []string{"csplit", "cat"}},
	{name: "csplit line number", script: `csplit lines.txt 2; cat xx00`, out: "4\n10\none\n", needs: []string{"csplit", "cat"}},
	{name: "csplit repeat", script: `csplit -s -f part lines.txt /t/ '{*}'; ls part*`, out: "part00\npart01\npart02\n", needs: []string{"csplit", "ls"}},
	{name: "csplit -z", script: `csplit -z lines.txt /one/ /three/; ls xx*`, out: "8\n6\nxx00\nxx01\n", needs: []string{"csplit", "ls"}},
	{name: "csplit skip", script: `csplit lines.txt %two%; cat xx00`, out: "10\ntwo\nthree\n", needs: []string{"csplit", "cat"}},
	{name: "csplit offsets", script: `csplit lines.txt /two/-1 /three/+1; cat xx00; echo =; cat xx01`, out: "0\n14\n0\n=\none\ntwo\nthree\n", needs: []string{"csplit", "cat"}},
	{name: "csplit suppress matched", script: `printf 'a\n---\nb\n---\nc\n' | csplit -s --suppress-matched - /---/ '{*}'; cat xx00 xx01 xx02`, out: "a\nb\nc\n", needs: []string{"csplit", "cat"}},
	{name: "csplit suffix format", script: `csplit -b '%02d.txt' -f sec- lines.txt 3; ls sec-*`, out: "8\n6\nsec-00.txt\nsec-01.txt\n", needs: []string{"csplit", "ls"}},
	{name: "csplit no match removes", script: `csplit lines.txt /nope/; echo $?; ls xx* 2>/dev/null | wc -l`, out: "14\n1\n0\n", errSub: "csplit: ‘/nope/’: match not found", needs: []string{"csplit", "ls", "wc"}},
	{name: "csplit -k keeps", script: `csplit -k lines.txt 5; echo $?; cat xx00`, out: "14\n1\none\ntwo\nthree\n", errSub: "csplit: ‘5’: line number out of range", needs: []string{"csplit", "cat"}},
	{name: "csplit zero line", script: `csplit lines.txt 0`, errSub: "csplit: 0: line number must be greater than zero", exit: 1, needs: []string{"csplit"}},
	{name: "csplit bad regex", script: `csplit lines.txt '/[/'`, errSub: "csplit: ‘/[/’: invalid regular expression: Invalid regular expression", exit: 1, needs: []string{"csplit"}},
}
