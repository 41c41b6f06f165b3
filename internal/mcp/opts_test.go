package mcp_test

import (
	"time"

	"github.com/desk-dev/desk/internal/tools"
)

func toolsOpts() tools.Options { return tools.Options{ProgressInterval: time.Millisecond} }
