package cmds

import "testing"

func TestColumn(t *testing.T) {
	seq := func(n int) string {
		s := ""
		for i := 1; i <= n; i++ {
			s += itoaTest(i) + "\n"
		}
		return s
	}
	rows := []textRow{
		{stdin: "a b c\nlonger x\n\nz  y\n", args: []string{"column", "-t"}, out: "a       b  c\nlonger  x  \nz       y  \n"},
		{stdin: "a,,b\nc,d,e\n", args: []string{"column", "-t", "-s,"}, out: "a     b\nc  d  e\n"},
		{stdin: "a:b\ncc:d\n", args: []string{"column", "-t", "-s:", "-o", " | "}, out: "a  | b\ncc | d\n"},
		{stdin: "a  b\n  c d\n", args: []string{"column", "-t", "-s", " "}, out: "a    b  \n     c  d\n"},
		{stdin: "a\tb\n  c d\n", args: []string{"column", "-t"}, out: "a  b\nc  d\n"},
		{stdin: "a,b,c\nx\n", args: []string{"column", "-t", "-s,", "-o|"}, out: "a|b|c\nx| |\n"},
		{stdin: "é b\nxx y\n", args: []string{"column", "-t"}, out: "é   b\nxx  y\n"},
		{stdin: seq(30), args: []string{"column"}, out: "1\t4\t7\t10\t13\t16\t19\t22\t25\t28\n2\t5\t8\t11\t14\t17\t20\t23\t26\t29\n3\t6\t9\t12\t15\t18\t21\t24\t27\t30\n"},
		{stdin: seq(5), args: []string{"column", "-x", "-c", "20"}, out: "1\t2\n3\t4\n5\n"},
		{stdin: seq(30), args: []string{"column", "-x"}, out: "1\t2\t3\t4\t5\t6\t7\t8\t9\t10\n11\t12\t13\t14\t15\t16\t17\t18\t19\t20\n21\t22\t23\t24\t25\t26\t27\t28\t29\t30\n"},
		{stdin: "apple\nbanana\ncherry\n", args: []string{"column"}, out: "apple\tbanana\tcherry\n"},
		{stdin: "ab\n\ncd\n", args: []string{"column"}, out: "ab\tcd\n"},
		{stdin: seq(10), args: []string{"column", "-c", "30"}, out: "1\t5\t9\n2\t6\t10\n3\t7\n4\t8\n"},
		{stdin: seq(12), args: []string{"column"}, env: map[string]string{"COLUMNS": "20"}, out: "1\t7\n2\t8\n3\t9\n4\t10\n5\t11\n6\t12\n"},
		{stdin: "a very long line that is longer than the width\nb\n", args: []string{"column", "-c", "20"}, out: "a very long line that is longer than the width\nb\n"},
		{args: []string{"column", "nofile"}, errOut: "column: nofile: No such file or directory\n", code: 1},
	}
	runTextRows(t, rows)
}

func itoaTest(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoaTest(i/10) + string(rune('0'+i%10))
}
