package cmds

import "testing"

func TestTimeout(t *testing.T) {
	th := "Try 'timeout --help' for more information.\n"
	runTextRows(t, []textRow{
		{args: []string{"timeout", "5", "seq", "2"}, out: "1\n2\n"},
		{args: []string{"timeout", "0", "seq", "1"}, out: "1\n"},
		{args: []string{"timeout", "1m", "false"}, code: 1},
		{args: []string{"timeout", "0.1", "sleep", "10"}, code: 124},
		{args: []string{"timeout", "-s", "KILL", "0.1", "sleep", "10"}, code: 137, skip: "bash reports the KILL of timeout itself; status is right"},
		{args: []string{"timeout", "-k", "1", "0.1", "sleep", "10"}, code: 124},
		{args: []string{"timeout", "--preserve-status", "0.1", "sleep", "10"}, code: 143},
		{args: []string{"timeout", "--preserve-status", "-s", "INT", "0.1", "sleep", "10"}, code: 130},
		{args: []string{"timeout", "-s", "term", "0.1", "sleep", "10"}, code: 124},
		{args: []string{"timeout", "-v", "0.1", "sleep", "10"}, code: 124,
			errOut: "timeout: sending signal TERM to command ‘sleep’\n"},
		{args: []string{"timeout"}, code: 125, errOut: th},
		{args: []string{"timeout", "1"}, code: 125, errOut: th},
		{args: []string{"timeout", "x", "true"}, code: 125, errOut: "timeout: invalid time interval ‘x’\n" + th},
		{args: []string{"timeout", "-k", "x", "1", "true"}, code: 125, errOut: "timeout: invalid time interval ‘x’\n" + th},
		{args: []string{"timeout", "-s", "FOO", "1", "true"}, code: 125, errOut: "timeout: ‘FOO’: invalid signal\n" + th},
		{args: []string{"timeout", "1", "nosuch"}, code: 127, errOut: "timeout: failed to run command ‘nosuch’: No such file or directory\n"},
	})
}
