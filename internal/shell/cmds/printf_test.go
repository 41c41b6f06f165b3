package cmds

import "testing"

func TestPrintf(t *testing.T) {
	runTextRows(t, []textRow{
		{args: []string{"printf"}, code: 1, errOut: "printf: missing operand\nTry 'printf --help' for more information.\n"},
		{args: []string{"printf", "hello\\n"}, out: "hello\n"},
		{args: []string{"printf", "--", "%s\\n", "x"}, out: "x\n"},
		{args: []string{"printf", "%s-%s\\n", "1", "2", "3"}, out: "1-2\n3-\n"},
		{args: []string{"printf", "x\\n", "a", "b"}, out: "x\n", errOut: "printf: warning: ignoring excess arguments, starting with ‘a’\n"},
		{args: []string{"printf", "%d|", "abc", "12abc", " 12", "12 ", "08", "0x1F", "'A", "'é", "-1", "", "+5", "1.5"},
			out: "0|12|12|12|0|31|65|233|-1|0|5|1|", code: 1,
			errOut: "printf: ‘abc’: expected a numeric value\nprintf: ‘12abc’: value not completely converted\n" +
				"printf: ‘12 ’: value not completely converted\nprintf: ‘08’: value not completely converted\n" +
				"printf: ‘1.5’: value not completely converted\n"},
		{args: []string{"printf", "%d\\n", "99999999999999999999"}, out: "9223372036854775807\n", code: 1,
			errOut: "printf: ‘99999999999999999999’: Numerical result out of range\n"},
		{args: []string{"printf", "%d\\n", "'AB"}, out: "65\n", errOut: "printf: warning: B: character(s) following character constant have been ignored\n"},
		{args: []string{"printf", "%d\\n", "\""}, out: "0\n", code: 1, errOut: "printf: ‘\"’: expected a numeric value\n"},
		{args: []string{"printf", "%u %x %o %X\\n", "-1", "-1", "-1", "255"}, out: "18446744073709551615 ffffffffffffffff 1777777777777777777777 FF\n"},
		{args: []string{"printf", "%i %5s %-5s| %.2s\\n", "010", "ab", "cd", "xyz"}, out: "8    ab cd   | xy\n"},
		{args: []string{"printf", "%*d|%-*d|%.*f|%*s\\n", "5", "1", "3", "2", "1", "3.14159", "-4", "x"}, out: "    1|2  |3.1|x   \n"},
		{args: []string{"printf", "%5.2f|%-8.3e|%g|%G|%#g|%+d|% d|%05d|%.3d|%#o|%#x|%x\\n", "3.14159", "1234.5", "0.0001", "1e-10", "1.5", "5", "5", "-42", "7", "8", "255", "0"},
			out: " 3.14|1.234e+03|0.0001|1E-10|1.50000|+5| 5|-0042|007|010|0xff|0\n"},
		{args: []string{"printf", "%-+5d|%+.3x|%#5.0f|%#.0e|%010.3f|%-05d|\\n", "3", "255", "2", "3", "-3.14159", "7"},
			out: "+3   |0ff|   2.|3.e+00|-00003.142|7    |\n"},
		{args: []string{"printf", "%.20f %Lf %hd %ld\\n", "0.1", "1", "2", "3"}, out: "0.10000000000000000000 1.000000 2 3\n"},
		{args: []string{"printf", "%g %g %g %g %g %e\\n", "100000", "1e6", "0.5", "123456789", "1e-5", "0"}, out: "100000 1e+06 0.5 1.23457e+08 1e-05 0.000000e+00\n"},
		{args: []string{"printf", "%f %f %.1f\\n", "0x10", "0x1.8p1", ".25"}, out: "16.000000 3.000000 0.2\n"},
		{args: []string{"printf", "%e %E %f %F %5f|\\n", "inf", "-inf", "nan", "NAN", "infinity"}, out: "inf -INF nan NAN   inf|\n"},
		{args: []string{"printf", "%d %f\\n", "1e3", "1,5"}, out: "1 1.000000\n", code: 1,
			errOut: "printf: ‘1e3’: value not completely converted\nprintf: ‘1,5’: value not completely converted\n"},
		{args: []string{"printf", "%5d|%5s|%c|\\n"}, out: "    0|     |\x00|\n"},
		{args: []string{"printf", "%c%c%3c|\\n", "abc", "é", "q"}, out: "a\xc3  q|\n"},
		{args: []string{"printf", "%b|%b|%b\\n", "a\\nb", "\\0101\\101", "x\\cy"}, out: "a\nb|AA|x"},
		{args: []string{"printf", "%s\\n", "a\\nb"}, out: "a\\nb\n"},
		{args: []string{"printf", "\\101\\0101\\u00e9\\x41g\\\"\\q\\n"}, out: "A\x081éAg\"\\q\n"},
		{args: []string{"printf", "a\\cb\\n"}, out: "a"},
		{args: []string{"printf", "a\\x"}, out: "a", code: 1, errOut: "printf: missing hexadecimal number in escape\n"},
		{args: []string{"printf", "%z"}, code: 1, errOut: "printf: %z: invalid conversion specification\n"},
		{args: []string{"printf", "a%"}, out: "a", code: 1, errOut: "printf: %: invalid conversion specification\n"},
		{args: []string{"printf", "[%5b]"}, out: "[", code: 1, errOut: "printf: %5b: invalid conversion specification\n"},
		{args: []string{"printf", "%5%"}, code: 1, errOut: "printf: %5%: invalid conversion specification\n"},
		{args: []string{"printf", "100%%\\n"}, out: "100%\n"},
		{args: []string{"printf", "%q\\n", "a b", "a'b", "", "abc", "a\nb", "a\"b", "~x", "x=y", "a'b c", "é", "a'b\"c", "a'b$c", "\t", "\x01", "\xff", "{", "{a", "a?", "]", "#a", "a#", "'", "-x", "a\\b", "a\n'b"},
			out: "'a b'\n\"a'b\"\n''\nabc\n'a'$'\\n''b'\n'a\"b'\n'~x'\n'x=y'\n\"a'b c\"\né\n'a'\\''b\"c'\n'a'\\''b$c'\n''$'\\t'\n''$'\\001'\n''$'\\377'\n'{'\n{a\n'a?'\n]\n'#a'\na#\n\"'\"\n-x\n'a\\b'\n'a'$'\\n'\\''b'\n"},
		{name: "q quote then control", args: []string{"printf", "%q\\n", "a'b\n"}, out: "'''a'\\''b'$'\\n'\n"},
		{name: "long double range", args: []string{"printf", "%.0f\\n", "1e400"}, out: "1" + "0000000000000000000281880683947586514586453433629052038625910693539685534008629862039363994848324160522094053927317616200295822777259255734023828976593340661017797447434546173917862448116674971723778943824391593338047470675026246684401359237513603830343735485505244955964979021825038280091068414947402456898653040951017512658092615827588920183472511643316591362664138176309734806343732497430221946880\n"},
	})
}
