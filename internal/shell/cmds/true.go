package cmds

func init() {
	Register("true", True)
	Register("false", False)
}

// True does nothing and succeeds, ignoring its arguments (for env true,
// xargs true and the like; the interpreter has its own builtin).
func True(env *Env, args []string) int { return 0 }

// False does nothing and fails with status 1, ignoring its arguments.
func False(env *Env, args []string) int { return 1 }
