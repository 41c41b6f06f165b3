package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/internal/audit"
)

// Environment variables the client commands read (the client package's).
const (
	envURL    = client.EnvURL
	envToken  = client.EnvToken
	envConfig = client.EnvConfig
)

// configFile is the JSON file `desk serve` writes for the local user.
type configFile = client.Config

// configPath returns the config file's path (client.ConfigPath).
func configPath() (string, error) { return client.ConfigPath() }

// readConfig reads the config file; a missing file is (nil, path, nil).
func readConfig() (*configFile, string, error) { return client.ReadConfig() }

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
type server = client.Server

// resolve finds the server and token: each from its flag, else its
// environment variable, else the config file (client.Resolve).
func (sf *serverFlags) resolve() (server, error) { return client.Resolve(sf.url, sf.token) }

// labelHeader is the audit labels of the CLI's requests, from $DESK_AGENT,
// $DESK_SESSION, $DESK_MODEL and $DESK_TURN (an agent running desk sets them).
func labelHeader() http.Header {
	h := http.Header{}
	for env, name := range map[string]string{"DESK_AGENT": audit.HeaderAgent, "DESK_SESSION": audit.HeaderSession, "DESK_MODEL": audit.HeaderModel, "DESK_TURN": audit.HeaderTurn} {
		if v := os.Getenv(env); v != "" {
			h.Set(name, v)
		}
	}
	return h
}

// client resolves the server and returns a client for it.
func (sf *serverFlags) client() (*client.Client, server, error) {
	s, err := sf.resolve()
	if err != nil {
		return nil, s, err
	}
	c, err := client.New(s.URL, s.Token, client.Options{UserAgent: "desk-cli", Header: labelHeader()})
	if err != nil {
		return nil, s, fmt.Errorf("server URL %q (from %s): %w", s.URL, s.From, err)
	}
	return c, s, nil
}
