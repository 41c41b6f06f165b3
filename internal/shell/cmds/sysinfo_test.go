package cmds

import (
	"runtime"
	"strconv"
	"testing"
)

func TestSysinfo(t *testing.T) {
	rel, ver, mach := sysUname()
	ncpu := strconv.Itoa(runtime.NumCPU()) + "\n"
	host := "the node name is the workspace's (hostname), not the host's"
	runTextRows(t, []textRow{
		{args: []string{"uname"}, out: "Linux\n"},
		{args: []string{"uname", "-s", "-o"}, out: "Linux GNU/Linux\n"},
		{args: []string{"uname", "-r"}, out: rel + "\n"},
		{args: []string{"uname", "-v"}, out: ver + "\n"},
		{args: []string{"uname", "-m"}, out: mach + "\n"},
		{args: []string{"uname", "-p", "-i"}, out: "unknown unknown\n"},
		{args: []string{"uname", "-srm"}, out: "Linux " + rel + " " + mach + "\n"},
		{args: []string{"uname", "-n"}, out: "workspace\n", host: host},
		{args: []string{"uname", "-a"}, out: "Linux workspace " + rel + " " + ver + " " + mach + " GNU/Linux\n", host: host},
		{args: []string{"uname", "-n"}, env: map[string]string{"HOSTNAME": "ws1"}, out: "ws1\n", host: host},
		{args: []string{"uname", "x"}, code: 1, errOut: "uname: extra operand ‘x’\nTry 'uname --help' for more information.\n"},
		{args: []string{"arch"}, out: mach + "\n"},
		{args: []string{"nproc"}, out: ncpu},
		{args: []string{"nproc", "--all"}, out: ncpu, host: "--all counts the online processors, which may exceed the affinity"},
		{args: []string{"nproc", "--ignore=1000"}, out: "1\n"},
		{args: []string{"nproc"}, env: map[string]string{"OMP_NUM_THREADS": "7"}, out: "7\n"},
		{args: []string{"nproc"}, env: map[string]string{"OMP_NUM_THREADS": "7", "OMP_THREAD_LIMIT": "3"}, out: "3\n"},
		{args: []string{"id"}, out: "uid=0(root) gid=0(root) groups=0(root)\n", host: "the host's identity (root here)"},
		{args: []string{"id", "-u"}, out: "0\n", host: "the host's identity"},
		{args: []string{"id", "-un"}, out: "root\n", host: "the host's identity"},
		{args: []string{"id", "-gn"}, out: "root\n", host: "the host's identity"},
		{args: []string{"id", "-G"}, out: "0\n", host: "the host's identity"},
		{args: []string{"id", "root"}, out: "uid=0(root) gid=0(root) groups=0(root)\n"},
		{args: []string{"id", "-u", "-g"}, code: 1, errOut: "id: cannot print \"only\" of more than one choice\n"},
		{args: []string{"id", "-n"}, code: 1, errOut: "id: cannot print only names or real IDs in default format\n"},
		{args: []string{"id", "-z"}, code: 1, errOut: "id: option --zero not permitted in default format\n"},
		{args: []string{"id", "nosuchuser"}, code: 1, errOut: "id: ‘nosuchuser’: no such user\n"},
		{args: []string{"groups"}, out: "root\n", host: "the host's identity"},
		{args: []string{"groups", "root"}, out: "root : root\n"},
		{args: []string{"groups", "nosuchuser"}, code: 1, errOut: "groups: ‘nosuchuser’: no such user\n"},
		{args: []string{"tty"}, out: "not a tty\n", code: 1},
		{args: []string{"tty", "-s"}, code: 1},
		{args: []string{"logname"}, code: 1, errOut: "logname: no login name\n"},
	})
}
