package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Environment variables that name the server a program talks to (Resolve,
// FromEnvironment, and every desk command).
const (
	EnvURL    = "DESK_URL"    // the server's URL
	EnvToken  = "DESK_TOKEN"  // the bearer token (admin or workspace token)
	EnvConfig = "DESK_CONFIG" // the config file's path, replacing the default
)

// ErrNoServer is Resolve's error when no server address is found anywhere.
var ErrNoServer = errors.New("no desk server configured: run `desk serve`, or set DESK_URL and DESK_TOKEN")

// Config is the JSON file `desk serve` writes for the local user (mode
// 0600), so that programs on this machine find the server without flags.
type Config struct {
	URL     string `json:"url"`           // the server's URL, http://127.0.0.1:7878
	Token   string `json:"token"`         // the admin token
	DataDir string `json:"data_dir"`      // the server's data directory (informational)
	PID     int    `json:"pid,omitempty"` // the server process (informational)
}

// ConfigPath returns the config file's path: $DESK_CONFIG if set, else
// desk/config.json in the user's config directory ($XDG_CONFIG_HOME, or
// ~/.config).
func ConfigPath() (string, error) {
	if p := os.Getenv(EnvConfig); p != "" {
		return p, nil
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("find config file: %w", err)
	}
	return filepath.Join(dir, "desk", "config.json"), nil
}

// ReadConfig reads the config file and returns it with its path; a missing
// file is (nil, path, nil).
func ReadConfig() (*Config, string, error) {
	p, err := ConfigPath()
	if err != nil {
		return nil, "", err
	}
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, p, nil
	}
	if err != nil {
		return nil, p, fmt.Errorf("read config file: %w", err)
	}
	var cf Config
	if err := json.Unmarshal(b, &cf); err != nil {
		return nil, p, fmt.Errorf("read config file %s: %w", p, err)
	}
	return &cf, p, nil
}

// Server is a resolved server address and token.
type Server struct {
	URL, Token string
	// From says where the URL came from: "--url" (the caller's), "$DESK_URL"
	// or the config file's path.
	From string
}

// Resolve finds the server and its token: each from the argument when it is
// not empty, else its environment variable, else the config file. The
// config file's token is only sent to the config file's URL: a URL from an
// argument or the environment with no token of its own gets none from the
// file.
func Resolve(url, token string) (Server, error) {
	s := Server{URL: url, Token: token, From: "--url"}
	if s.URL == "" {
		s.URL, s.From = os.Getenv(EnvURL), "$"+EnvURL
	}
	if s.Token == "" {
		s.Token = os.Getenv(EnvToken)
	}
	if s.URL != "" && s.Token != "" {
		return s, nil
	}
	cf, path, err := ReadConfig()
	if err != nil {
		return Server{}, err
	}
	if s.URL == "" {
		if cf == nil || cf.URL == "" {
			return Server{}, ErrNoServer
		}
		s.URL, s.From = cf.URL, path
	}
	if s.Token == "" && cf != nil && sameURL(cf.URL, s.URL) {
		s.Token = cf.Token
	}
	if s.Token == "" {
		return Server{}, fmt.Errorf("no token for the desk server at %s: pass --token or set %s", s.URL, EnvToken)
	}
	return s, nil
}

func sameURL(a, b string) bool {
	return strings.TrimRight(a, "/") == strings.TrimRight(b, "/")
}

// FromEnvironment returns a client of the server Resolve("", "") finds:
// $DESK_URL and $DESK_TOKEN, else the config file `desk serve` wrote.
func FromEnvironment(opts Options) (*Client, error) {
	s, err := Resolve("", "")
	if err != nil {
		return nil, err
	}
	c, err := New(s.URL, s.Token, opts)
	if err != nil {
		return nil, fmt.Errorf("server URL %q (from %s): %w", s.URL, s.From, err)
	}
	return c, nil
}
