// Package interptest holds the bash-confirmed table of desk's interpreter
// (../testdata/interp_table.jsonl, one script a line with what bash 5.2
// prints and exits with) and its tests and benchmarks: every row is run
// through the real bash -c (TestInterpTable_confirm) and through the shell
// backend on desk's interpreter (TestInterpTable_desk, which must agree
// exactly but for the rows of deskGaps, each re-checked) and on
// mvdan.cc/sh's (TestInterpTable_mvdan, counted). It is a package of its
// own so that the shell package's tests keep within go test's timeout.
package interptest
