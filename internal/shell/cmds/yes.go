package cmds

import (
	"bytes"
	"strings"
)

func init() { Register("yes", Yes) }

// Yes writes its arguments joined by spaces (default "y") and a newline
// again and again until the output is closed (a write fails, as when head
// has read enough) or Env.Ctx is cancelled.
func Yes(env *Env, args []string) int {
	rest := args[1:]
	if len(rest) > 0 && rest[0] == "--" {
		rest = rest[1:]
	}
	line := "y"
	if len(rest) > 0 {
		line = strings.Join(rest, " ")
	}
	chunk := bytes.Repeat([]byte(line+"\n"), max(1, 8192/(len(line)+1)))
	for !env.Canceled() {
		if _, err := env.Stdout.Write(chunk); err != nil {
			return 1
		}
	}
	return 1
}
