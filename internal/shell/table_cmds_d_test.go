package shell

// tableCmdsD holds rows for the calculators (expr, bc), the system
// information commands (uname, id, nproc...) and the commands added with
// them (shuf, dd, truncate, cksum, ...).
var tableCmdsD = []row{
	// expr
	{name: "expr arithmetic", script: `expr 2 + 3 \* 4; expr \( 7 - 10 \) / 2; expr 17 % 5`, out: "14\n-1\n2\n", needs: []string{"expr"}},
	{name: "expr counter loop", script: `i=0; while [ $i -lt 3 ]; do i=$(expr $i + 1); done; echo $i`, out: "3\n", needs: []string{"expr"}},
	{name: "expr big integers", script: `expr 18446744073709551615 + 1`, out: "18446744073709551616\n", needs: []string{"expr"}},
	{name: "expr match and groups", script: `expr "release-1.24.3" : 'release-\([0-9.]*\)'; expr abc : 'a.'; expr match foo 'f*'`, out: "1.24.3\n2\n1\n", needs: []string{"expr"}},
	{name: "expr string keywords", script: `expr length "hello"; expr substr "hello world" 7 5; expr index hello l`, out: "5\nworld\n3\n", needs: []string{"expr"}},
	{name: "expr status of a null result", script: `expr 3 - 3; echo $?; expr "" \| 0; echo $?; expr x = x; echo $?`, out: "0\n1\n0\n1\n1\n0\n", needs: []string{"expr"}},
	{name: "expr errors", script: `expr 1 / 0; echo $?; expr a + 1; echo $?; expr 1 +; echo $?`, out: "2\n2\n2\n",
		errSub: "expr: division by zero\nexpr: non-integer argument\nexpr: syntax error: missing argument after ‘+’", needs: []string{"expr"}},
	// bc
	{name: "bc scale and division", script: `echo 'scale=2; 10/3' | bc; echo '5/2' | bc; echo "scale=4; (1.5+2.25)*2" | bc`, out: "3.33\n2\n7.50\n", needs: []string{"bc"}},
	{name: "bc -l math library", script: `echo '4*a(1)' | bc -l; echo 'e(1); l(10); s(1); c(0); sqrt(2)' | bc -l`, out: "3.14159265358979323844\n2.71828182845904523536\n2.30258509299404568401\n.84147098480789650665\n1.00000000000000000000\n1.41421356237309504880\n", needs: []string{"bc"}},
	{name: "bc bases", script: `echo 'obase=16; 255' | bc; echo 'ibase=2; 1011' | bc; echo 'obase=2; 10' | bc`, out: "FF\n11\n1010\n", needs: []string{"bc"}},
	{name: "bc here-string percent", script: `total=7; part=3; bc <<< "scale=1; $part*100/$total"`, out: "42.8\n", needs: []string{"bc"}},
	{name: "bc functions and loops", script: "bc <<'EOF'\ndefine f(n) {\n  auto i, p\n  p = 1\n  for (i = 2; i <= n; i++) p *= i\n  return (p)\n}\nf(25)\ni = 0; while (i < 3) { print i, \" \"; i += 1 }; print \"\\n\"\nquit\nEOF", out: "15511210043330985984000000\n0 1 2 \n", needs: []string{"bc"}},
	{name: "bc wraps long numbers", script: `echo '2^250' | bc; echo '2^250' | BC_LINE_LENGTH=0 bc`, out: "18092513943330655534932966407607485602073435104006338131165247501236\\\n42650624\n1809251394333065553493296640760748560207343510400633813116524750123642650624\n", needs: []string{"bc"}},
	{name: "bc comparisons in shell tests", script: `if [ "$(echo '3.5 > 2.25' | bc)" -eq 1 ]; then echo bigger; fi`, out: "bigger\n", needs: []string{"bc"}},
	{name: "bc errors", script: `echo '1/0' | bc; echo '1 +* 2' | bc; echo $?`, out: "0\n", errSub: "(standard_in) 1: syntax error", needs: []string{"bc"}},
	{name: "bc file operand", script: `printf 'x = 6\nx * 7\n' > prog.bc; bc -q prog.bc <<< 'x + 1'`, out: "42\n7\n", needs: []string{"bc"}},
	// uname, arch, nproc, id, groups, tty, logname
	{name: "uname kernel and os", script: `uname; uname -s -o; [ "$(uname -m)" = "$(arch)" ] && echo same-arch; uname -r | grep -c '^[0-9]'`, out: "Linux\nLinux GNU/Linux\nsame-arch\n1\n", needs: []string{"uname", "arch", "grep"}},
	{name: "uname in a case", script: `case "$(uname -s)" in Linux) echo linux;; Darwin) echo mac;; esac`, out: "linux\n", needs: []string{"uname"}},
	{name: "nproc for make -j", script: `n=$(nproc); [ "$n" -ge 1 ] && echo ok; OMP_NUM_THREADS=3 nproc`, out: "ok\n3\n", needs: []string{"nproc"}},
	{name: "id and groups", script: `id -u; id -un; id; groups`, out: "0\nroot\nuid=0(root) gid=0(root) groups=0(root)\nroot\n", needs: []string{"id", "groups"}},
	{name: "root check", script: `if [ "$(id -u)" -eq 0 ]; then echo root; fi`, out: "root\n", needs: []string{"id"}},
	{name: "tty and logname", script: `tty; echo $?; tty -s || echo no-tty; logname; echo $?`, out: "not a tty\n1\nno-tty\n1\n", errSub: "logname: no login name", needs: []string{"tty", "logname"}},
}
