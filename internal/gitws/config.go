package gitws

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	formatcfg "github.com/go-git/go-git/v5/plumbing/format/config"
)

// config is the configuration a command sees: the per-workspace global
// file ($HOME/.gitconfig, then $XDG_CONFIG_HOME/git/config) below the
// repository's own .git/config, below -c options. The host's /etc/gitconfig
// and the host user's files are never read.
type config struct {
	files []*formatcfg.Config // lowest priority first
	over  map[string]string   // -c key=value (lowercased section and key)
}

// maxConfigBytes bounds one configuration file read.
const maxConfigBytes = 1 << 20

// globalConfigPath is the per-workspace global configuration file.
func globalConfigPath(env *Env) string {
	home := env.getenv("HOME")
	if home == "" {
		home = "/workspace"
	}
	return env.abs(home) + "/.gitconfig"
}

// readConfigFile parses one configuration file of the store (empty when
// missing).
func readConfigFile(env *Env, p string) (*formatcfg.Config, error) {
	c := formatcfg.New()
	fi, err := env.FS.Stat(env.Ctx, p)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return nil, err
	}
	if fi.Size() > maxConfigBytes {
		return nil, fmt.Errorf("bad config file %s: over %d bytes", p, maxConfigBytes)
	}
	data, err := env.FS.ReadFile(env.Ctx, p)
	if err != nil {
		return nil, err
	}
	if err := formatcfg.NewDecoder(bytes.NewReader(data)).Decode(c); err != nil {
		return nil, fmt.Errorf("bad config file %s: %w", p, err)
	}
	return c, nil
}

// writeConfigFile writes a configuration file atomically.
func writeConfigFile(env *Env, p string, c *formatcfg.Config) error {
	var buf bytes.Buffer
	if err := formatcfg.NewEncoder(&buf).Encode(c); err != nil {
		return err
	}
	return env.FS.WriteFile(env.Ctx, p, buf.Bytes(), 0o644)
}

// loadConfig reads the global files and, when gitDir is set, the local one.
func loadConfig(env *Env, gitDir string) (*config, error) {
	c := &config{over: env.overrides()}
	paths := []string{}
	if x := env.getenv("XDG_CONFIG_HOME"); x != "" {
		paths = append(paths, env.abs(x)+"/git/config")
	} else {
		home := env.getenv("HOME")
		if home == "" {
			home = "/workspace"
		}
		paths = append(paths, env.abs(home)+"/.config/git/config")
	}
	paths = append(paths, globalConfigPath(env))
	if gitDir != "" {
		paths = append(paths, gitDir+"/config")
	}
	for _, p := range paths {
		f, err := readConfigFile(env, p)
		if err != nil {
			return nil, err
		}
		c.files = append(c.files, f)
	}
	return c, nil
}

// splitKey splits "section.sub.key" into its parts; ok is false for a key
// without a section or a name.
func splitKey(key string) (section, sub, name string, ok bool) {
	i := strings.IndexByte(key, '.')
	j := strings.LastIndexByte(key, '.')
	if i <= 0 || j == len(key)-1 {
		return "", "", "", false
	}
	section = strings.ToLower(key[:i])
	name = strings.ToLower(key[j+1:])
	if i != j {
		sub = key[i+1 : j]
	}
	return section, sub, name, true
}

// canonKey is a key as git prints it: section and name lowercased.
func canonKey(key string) string {
	s, sub, n, ok := splitKey(key)
	if !ok {
		return key
	}
	if sub != "" {
		return s + "." + sub + "." + n
	}
	return s + "." + n
}

// lookupIn returns every value of key in one file.
func lookupIn(f *formatcfg.Config, key string) []string {
	s, sub, n, ok := splitKey(key)
	if !ok {
		return nil
	}
	var out []string
	for _, sec := range f.Sections {
		if !sec.IsName(s) {
			continue
		}
		if sub == "" {
			out = append(out, sec.OptionAll(n)...)
			continue
		}
		for _, ss := range sec.Subsections {
			if ss.Name == sub {
				out = append(out, ss.OptionAll(n)...)
			}
		}
	}
	return out
}

// get returns the value of key in force and whether it is set.
func (c *config) get(key string) (string, bool) {
	if v, ok := c.over[canonKey(key)]; ok {
		return v, true
	}
	for i := len(c.files) - 1; i >= 0; i-- {
		if vs := lookupIn(c.files[i], key); len(vs) > 0 {
			return vs[len(vs)-1], true
		}
	}
	return "", false
}

// bool reads a boolean key (def when unset).
func (c *config) bool(key string, def bool) bool {
	v, ok := c.get(key)
	if !ok {
		return def
	}
	switch strings.ToLower(v) {
	case "true", "yes", "on", "1", "":
		return true
	}
	return false
}

// list returns every key=value in force order (global files, local, -c).
func (c *config) list() []string {
	var out []string
	for _, f := range c.files {
		for _, sec := range f.Sections {
			for _, o := range sec.Options {
				out = append(out, strings.ToLower(sec.Name)+"."+strings.ToLower(o.Key)+"="+o.Value)
			}
			for _, ss := range sec.Subsections {
				for _, o := range ss.Options {
					out = append(out, strings.ToLower(sec.Name)+"."+ss.Name+"."+strings.ToLower(o.Key)+"="+o.Value)
				}
			}
		}
	}
	return out
}

// overrides parses the -c options carried in GIT_CONFIG_PARAMETERS form by
// the command line (set by Main).
func (e *Env) overrides() map[string]string {
	m := map[string]string{}
	for _, kv := range e.configParams {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			v = "true"
		}
		m[canonKey(k)] = v
	}
	return m
}
