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
}
