package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/desk-dev/desk/client"
)

// Environment variables the client commands read.
const (
	envURL    = "DESK_URL"    // the server's URL
	envToken  = "DESK_TOKEN"  // the bearer token (admin or workspace token)
	envConfig = "DESK_CONFIG" // the config file's path, replacing the default
)

// errNoServer is the message when no server address is found anywhere.
var errNoServer = errors.New("no desk server configured: run `desk serve`, or set DESK_URL and DESK_TOKEN")

// configFile is the JSON file `desk serve` writes for the local user, so
// that the client commands on this machine find the server without flags.
type configFile struct {
	URL     string `json:"url"`           // the server's URL, http://127.0.0.1:7878
	Token   string `json:"token"`         // the admin token
	DataDir string `json:"data_dir"`      // the server's data directory (informational)
	PID     int    `json:"pid,omitempty"` // the server process (informational)
}

// configPath returns the config file's path: $DESK_CONFIG if set, else
// desk/config.json in the user's config directory ($XDG_CONFIG_HOME, or
// ~/.config).
func configPath() (string, error) {
	if p := os.Getenv(envConfig); p != "" {
		return p, nil
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("find config file: %w", err)
	}
	return filepath.Join(dir, "desk", "config.json"), nil
}

// readConfig reads the config file; a missing file is (nil, path, nil).
func readConfig() (*configFile, string, error) {
	p, err := configPath()
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
	var cf configFile
	if err := json.Unmarshal(b, &cf); err != nil {
		return nil, p, fmt.Errorf("read config file %s: %w", p, err)
	}
	return &cf, p, nil
}

// writeConfig writes the config file atomically with mode 0600 (its
// directory 0700) and returns its path.
func writeConfig(cf configFile) (string, error) {
	p, err := configPath()
	if err != nil {
		return "", err
	}
	b, err := json.MarshalIndent(cf, "", "  ")
	if err != nil {
		return "", err
	}
	dir := filepath.Dir(p)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("write config file: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".config-*.json")
	if err != nil {
		return "", fmt.Errorf("write config file: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return "", fmt.Errorf("write config file: %w", err)
	}
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return "", fmt.Errorf("write config file: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return "", fmt.Errorf("write config file: %w", err)
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		return "", fmt.Errorf("write config file: %w", err)
	}
	return p, nil
}

// serverFlags are the --url and --token flags every client command takes.
type serverFlags struct {
	url, token string
}

// addServerFlags registers --url and --token on fl.
func addServerFlags(fl *flag.FlagSet) *serverFlags {
	sf := &serverFlags{}
	fl.StringVar(&sf.url, "url", "", "the desk server's URL (default: $"+envURL+", else the config file written by desk serve)")
	fl.StringVar(&sf.token, "token", "", "the bearer token (default: $"+envToken+", else the config file's token for its URL)")
	return sf
}

// server is a resolved server address and token.
type server struct {
	URL, Token string
	From       string // where the URL came from: "--url", "$DESK_URL" or the config file's path
}

// resolve finds the server and token: each from its flag, else its
// environment variable, else the config file. The config file's token is
// only sent to the config file's URL: a URL from a flag or the environment
// with no token of its own gets none from the file.
func (sf *serverFlags) resolve() (server, error) {
	s := server{URL: sf.url, Token: sf.token, From: "--url"}
	if s.URL == "" {
		s.URL, s.From = os.Getenv(envURL), "$"+envURL
	}
	if s.Token == "" {
		s.Token = os.Getenv(envToken)
	}
	if s.URL != "" && s.Token != "" {
		return s, nil
	}
	cf, path, err := readConfig()
	if err != nil {
		return server{}, err
	}
	if s.URL == "" {
		if cf == nil || cf.URL == "" {
			return server{}, errNoServer
		}
		s.URL, s.From = cf.URL, path
	}
	if s.Token == "" && cf != nil && sameURL(cf.URL, s.URL) {
		s.Token = cf.Token
	}
	if s.Token == "" {
		return server{}, fmt.Errorf("no token for the desk server at %s: pass --token or set %s", s.URL, envToken)
	}
	return s, nil
}

func sameURL(a, b string) bool {
	return strings.TrimRight(a, "/") == strings.TrimRight(b, "/")
}

// client resolves the server and returns a client for it.
func (sf *serverFlags) client() (*client.Client, server, error) {
	s, err := sf.resolve()
	if err != nil {
		return nil, s, err
	}
	c, err := client.New(s.URL, s.Token, client.Options{UserAgent: "desk-cli"})
	if err != nil {
		return nil, s, fmt.Errorf("server URL %q (from %s): %w", s.URL, s.From, err)
	}
	return c, s, nil
}
