package gitws

import (
	"fmt"
	"strconv"
	"strings"
)

// cmdReflog is git reflog [show] [-n N] [REF[@{N}]] and git reflog exists
// REF: a ref's reflog, newest first, as "<abbrev> <ref>@{N}: <message>".
func cmdReflog(c *cmd, args []string) int {
	sub := "show"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		switch args[0] {
		case "show", "exists":
			sub, args = args[0], args[1:]
		case "expire", "delete":
			c.die("git reflog %s is not supported by the shell backend's git", args[0])
		}
	}
	// -N is git's short form of -n N
	for i, a := range args {
		if len(a) > 1 && a[0] == '-' && a[1] >= '0' && a[1] <= '9' {
			args[i] = "--max-count=" + a[1:]
		}
	}
	o := c.parse(args, spec{long: []string{"max-count="}, short: map[byte]string{'n': "max-count"}})
	r := c.needRepo()
	if sub == "exists" {
		if len(o.args) != 1 {
			c.die("reflog exists requires a ref")
		}
		ents, err := r.readReflog(o.args[0])
		if err != nil || len(ents) == 0 {
			return 1
		}
		return 0
	}
	if len(o.args) > 1 {
		c.die("git reflog show takes one ref (the shell backend's git)")
	}
	limit := c.maxCount(o)
	name, start := "HEAD", 0
	if len(o.args) == 1 {
		name = o.args[0]
	}
	if at := strings.Index(name, "@{"); at >= 0 && strings.HasSuffix(name, "}") {
		n, err := strconv.Atoi(name[at+2 : len(name)-1])
		if err != nil || n < 0 {
			c.die("ambiguous argument '%s': unknown revision or path not in the working tree.", name)
		}
		name, start = name[:at], n
	}
	if name == "" || name == "@" {
		name = "HEAD"
	}
	full, show := "HEAD", "HEAD"
	if name != "HEAD" {
		_, f, ok := r.lookupRef(name)
		if !ok {
			fmt.Fprintf(c.err, "fatal: ambiguous argument '%s': unknown revision or path not in the working tree.\nUse '--' to separate paths from revisions, like this:\n'git <command> [<revision>...] -- [<file>...]'\n", name)
			return ExitFatal
		}
		// git names a remote-tracking ref in full, others as given
		full, show = f, name
		if strings.HasPrefix(f, "refs/remotes/") {
			show = f
		}
	}
	ents, err := r.readReflog(full)
	if err != nil {
		c.dieErr(err)
	}
	for n := start; n < len(ents) && limit != 0; n++ {
		e := ents[len(ents)-1-n]
		fmt.Fprintf(c.out, "%s %s@{%d}: %s\n", e.new.String()[:7], show, n, e.msg)
		limit--
	}
	return 0
}
