// Package textdiff compares sequences of lines: one implementation of
// Myers' O(ND) difference algorithm for the whole tree, used by the edit
// tool's diff (internal/tools) and by the shell's diff command
// (internal/shell/cmds). It imports only the standard library.
//
// # The algorithm
//
// Diff is the linear-space form of Myers' algorithm ("An O(ND) Difference
// Algorithm and Its Variations", 1986, section 4b): it searches from both
// ends at once for the middle snake of the shortest edit script, splits
// the problem there and repeats on the two halves. Its memory is O(N+M)
// (two arrays of N+M+3 integers and a flag per line), whatever the cost D
// of the script; its time is O((N+M)·D) in the worst case.
//
// Before the search, Diff sets aside the lines that occur nowhere in the
// other sequence (no script can keep them), which makes a block rewritten
// from scratch cost O(N+M). After it, runs of changes are slid up or down
// where equal lines allow, so that they merge and line up with changes in
// the other sequence.
//
// # Two modes
//
// Without Options.Minimal, Diff makes the choices of GNU diff 3.8 without
// --minimal, so that the shell's diff prints what GNU diff prints (checked
// against the installed diff in internal/shell/cmds): it also sets aside,
// inside runs of lines found nowhere else, lines that occur very often in
// the other sequence; it breaks ties between scripts of equal cost as GNU
// does; and a search of one split that has gone TOO_EXPENSIVE steps
// (max(4096, about the square root of N+M)) without meeting stops and
// splits at the point that got furthest. That last rule bounds each split's
// search, so the time stays near O((N+M)·TOO_EXPENSIVE), at the price of a
// longer script than the shortest on large, very different inputs.
//
// With Options.Minimal, Diff returns a shortest edit script, within a cap:
// when the shortest script costs more than MaxCost (default
// DefaultMaxCost, 4,096 lines deleted plus inserted, not counting the
// lines set aside), or more than MaxWork/(N+M) (default DefaultMaxWork,
// 10^8, with N+M the lines left to search), Diff stops and returns the
// fallback, Result.Fallback set: one change replacing the whole block
// between the common prefix and the common suffix. That is still a correct
// diff; it only says less. The cap bounds the time of a minimal search by
// O(MaxWork) on top of the linear passes.
//
// Both modes honour their context: Diff returns ctx.Err() soon after ctx
// ends.
//
// # Output
//
// SplitLines, Hunks, WriteLine and WriteUnified turn changes into GNU's
// unified format (lines keep their newline; a last line without one gets
// the "\ No newline at end of file" marker, which GNU patch understands).
package textdiff
