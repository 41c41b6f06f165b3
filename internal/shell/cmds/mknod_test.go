package cmds

import "testing"

// TestMknod_gnu: mknod's FIFOs and devices (type, mode, device number)
// and its messages, as GNU mknod makes them.
func TestMknod_gnu(t *testing.T) {
	files := map[string]string{"f": "x\n", "d/": ""}
	var cases []foCase
	add := func(name string, args ...string) {
		cases = append(cases, foCase{name: name, files: files, args: append([]string{"mknod"}, args...)})
	}
	add("fifo", "p1", "p")
	add("fifo long type", "p1", "pipe")
	add("char", "c1", "c", "1", "3")
	add("char u", "u1", "u", "1", "5")
	add("block", "b1", "b", "8", "0")
	add("hex and octal", "y", "c", "0x10", "010")
	add("largest", "big", "c", "4095", "1048575")
	add("major too large", "x", "c", "4096", "1")
	add("minor too large", "x", "c", "1", "1048576")
	add("major over 32 bits", "x", "c", "4294967296", "1")
	add("mode", "-m", "600", "p2", "p")
	add("mode symbolic", "-m", "+x", "p2", "p")
	add("mode symbolic who", "-m", "u=rwx,go=", "c2", "c", "1", "3")
	add("mode invalid", "-m", "9", "p3", "p")
	add("mode sticky", "-m", "1777", "p3", "p")
	add("exists", "f", "p")
	add("exists dir", "d", "c", "1", "3")
	add("no parent", "nodir/x", "p")
	add("parent is file", "f/x", "p")
	add("missing numbers", "x", "c")
	add("missing minor", "x", "c", "1")
	add("fifo with numbers", "x", "p", "1", "2")
	add("bad type", "x", "q", "1", "2")
	add("bad type short", "x", "q")
	add("empty type", "x", "", "1", "2")
	add("only name", "x")
	add("nothing")
	add("bad major", "x", "c", "a", "1")
	add("bad minor", "x", "c", "1", "b")
	add("negative", "x", "c", "--", "-1", "0")
	add("extra", "z", "b", "1", "2", "3")
	add("help", "--help")
	foRunGNU(t, cases)
}
