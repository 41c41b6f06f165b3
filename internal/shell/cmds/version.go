package cmds

import (
	"io"
	"strings"
)

// coreutils are commands of GNU coreutils 9.1 (those not registered are
// left out): their --version names that package, as Debian 12's do.
var coreutils = strings.Fields(`base64 basename cat chgrp chmod chown comm cp csplit cut date df dirname du echo env
	expand false fold head join ln ls md5sum mkdir mkfifo mktemp mv nl od paste printenv printf pwd
	mknod readlink realpath rm rmdir seq sha1sum sha224sum sha256sum sha384sum sha512sum sleep sort split
	stat tac tail tee test timeout touch tr true unexpand uniq wc whoami yes
	arch b2sum base32 basenc cksum dd expr factor fmt groups id install link logname nice nohup nproc numfmt
	shuf stdbuf sum sync truncate tsort tty uname unlink`)

// versionLines are the first lines --version prints, for the commands that
// do not answer it themselves: the line of the tool each emulates (the
// versions Debian 12 ships, which the compatibility tables are confirmed
// against), so that scripts that check a tool's version read what they
// expect. curl and wget, which differ more from the real tools, say they
// are desk's.
var versionLines = func() map[string]string {
	m := map[string]string{
		"grep": "grep (GNU grep) 3.8", "egrep": "grep (GNU grep) 3.8", "fgrep": "grep (GNU grep) 3.8",
		"diff": "diff (GNU diffutils) 3.8", "cmp": "cmp (GNU diffutils) 3.8",
		"find": "find (GNU findutils) 4.9.0", "xargs": "xargs (GNU findutils) 4.9.0",
		"gzip": "gzip 1.12", "gunzip": "gunzip (gzip) 1.12", "zcat": "zcat (gzip) 1.12",
		"column": "column from util-linux 2.38.1", "rev": "rev from util-linux 2.38.1",
		"hostname": "hostname 3.23", "file": "file-5.44", "jq": "jq-1.6", "patch": "GNU patch 2.7.6",
		"strings": "GNU strings (GNU Binutils for Debian) 2.40",
		"curl":    "curl 7.88.1 (desk shell backend)", "wget": "GNU Wget 1.21.3 (desk shell backend)",
	}
	for _, n := range coreutils {
		m[n] = n + " (GNU coreutils) 9.1"
	}
	m["dd"] = "dd (coreutils) 9.1" // dd's alone says so
	return m
}()

// withVersion answers "NAME --version" for f with versionLines' line, when
// name has one; other arguments go to f.
func withVersion(name string, f Func) Func {
	line, ok := versionLines[name]
	if !ok {
		return f
	}
	return func(env *Env, args []string) int {
		if len(args) == 2 && args[1] == "--version" {
			io.WriteString(env.Stdout, line+"\n")
			return 0
		}
		return f(env, args)
	}
}
