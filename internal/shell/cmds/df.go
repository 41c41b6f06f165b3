package cmds

import (
	"fmt"
	"strconv"
	"strings"
)

func init() { Register("df", Df) }

// Df reports the workspace's space as GNU df does, from FS.Statfs: one line
// for the mount "/", file system "workspace" of type "desk", the size being
// the store's space (vfs.StatFS: the free space is the smallest of the quota
// left, the disk's and the data directory's bound left, the size used plus
// free). Flags: -h -H (powers of 1000 are shown as -h's), -k, -m, -T, -i (inodes), -P, -a, -l, --total; operands must exist in the
// workspace and all name the same mount.
func Df(env *Env, args []string) int {
	opts, operands, ok := fuParseOpts(env, args, "h|human-readable", "H|si", "k", "m", "T|print-type",
		"i|inodes", "P|portability", "a|all", "l|local", "|total", "x|exclude-type=", "t|type=", "B|block-size=", "|sync", "|no-sync")
	if !ok {
		return 1
	}
	var human, typ, inodes, posix, total bool
	unit := int64(1024)
	for _, o := range opts {
		switch o.name {
		case "human-readable", "si":
			human = true
		case "k":
			unit, human = 1024, false
		case "m":
			unit, human = 1<<20, false
		case "block-size":
			u, ok := duBlockSize(o.val)
			if !ok {
				env.Errorf("df", "invalid --block-size argument '%s'", o.val)
				return 1
			}
			unit, human = u, false
		case "print-type":
			typ = true
		case "inodes":
			inodes = true
		case "portability":
			posix = true
		case "total":
			total = true
		}
	}
	status := 0
	for _, op := range operands {
		if _, err := env.FS.Stat(env.Ctx, env.Abs(op)); err != nil {
			env.Errorf("df", "%s: %s", op, Strerror(err))
			status = 1
		}
	}
	if len(operands) > 0 && status != 0 && len(operands) == 1 {
		return 1
	}
	st, err := env.FS.Statfs(env.Ctx)
	if err != nil {
		env.Errorf("df", "%s", Strerror(err))
		return 1
	}
	var size, used, avail int64
	var hdr []string
	if inodes {
		size, used, avail = st.Files, st.InodesInUse, st.FilesFree
		hdr = []string{"Inodes", "IUsed", "IFree", "IUse%"}
		if human {
			hdr = []string{"Inodes", "IUsed", "IFree", "IUse%"}
		}
	} else {
		// The size is used plus free; free is the smallest of the quota
		// left, the disk's free space and the data directory's bound left.
		size, used, avail = st.UsedBytes+st.FreeBytes, st.UsedBytes, st.FreeBytes
		switch {
		case human:
			hdr = []string{"Size", "Used", "Avail", "Use%"}
		case posix && unit == 1024:
			hdr = []string{"1024-blocks", "Used", "Available", "Capacity"}
		default:
			hdr = []string{dfUnitHeader(unit) + "-blocks", "Used", "Available", "Use%"}
		}
	}
	num := func(n int64) string {
		if inodes {
			if human {
				return fuHumanSize(n)
			}
			return strconv.FormatInt(n, 10)
		}
		if human {
			return fuHumanSize(n)
		}
		return strconv.FormatInt((n+unit-1)/unit, 10)
	}
	pct := "-"
	if used+avail > 0 {
		p := (used*100 + used + avail - 1) / (used + avail)
		pct = strconv.FormatInt(p, 10) + "%"
	}
	rows := [][]string{{"Filesystem"}}
	if typ {
		rows[0] = append(rows[0], "Type")
	}
	rows[0] = append(rows[0], hdr...)
	rows[0] = append(rows[0], "Mounted on")
	row := []string{"workspace"}
	if typ {
		row = append(row, "desk")
	}
	row = append(row, num(size), num(used), num(avail), pct, "/")
	rows = append(rows, row)
	count := 1
	if len(operands) > 0 {
		count = 0
		for _, op := range operands {
			if _, err := env.FS.Stat(env.Ctx, env.Abs(op)); err == nil {
				count++
			}
		}
		rows = rows[:1]
		for i := 0; i < count; i++ {
			rows = append(rows, row)
		}
	}
	if total {
		t := []string{"total"}
		if typ {
			t = append(t, "-")
		}
		t = append(t, num(size), num(used), num(avail), pct, "-")
		rows = append(rows, t)
	}
	// Column widths: the defaults of GNU df (14 for the name, 4 for the
	// type, 5 for numbers, 4 for the percentage), widened to fit.
	ncol := len(rows[0])
	widths := make([]int, ncol)
	for c := 0; c < ncol; c++ {
		switch {
		case c == 0:
			widths[c] = 14
		case typ && c == 1:
			widths[c] = 4
		case c == ncol-2:
			widths[c] = 4
		case c == ncol-1:
			widths[c] = 0
		default:
			widths[c] = 5
		}
		for _, r := range rows {
			if len(r[c]) > widths[c] {
				widths[c] = len(r[c])
			}
		}
	}
	var b strings.Builder
	for _, r := range rows {
		for c, v := range r {
			switch {
			case c == ncol-1:
				b.WriteString(v)
			case c == 0 || typ && c == 1:
				fmt.Fprintf(&b, "%-*s ", widths[c], v)
			default:
				fmt.Fprintf(&b, "%*s ", widths[c], v)
			}
		}
		b.WriteByte('\n')
	}
	fuPrintf(env, "%s", b.String())
	return status
}

// dfUnitHeader is the block-size header prefix: "1K", "1M", "512B"...
func dfUnitHeader(unit int64) string {
	for _, u := range []struct {
		n int64
		s string
	}{{1 << 40, "T"}, {1 << 30, "G"}, {1 << 20, "M"}, {1 << 10, "K"}} {
		if unit%u.n == 0 {
			return strconv.FormatInt(unit/u.n, 10) + u.s
		}
	}
	return strconv.FormatInt(unit, 10) + "B"
}
