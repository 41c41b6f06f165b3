package chat

import (
	"errors"
	"flag"
	"fmt"
	"net/http"
	"time"
)

// Defaults of Config.
const (
	DefaultMaxTokens      = 8192
	DefaultMaxSteps       = 50
	DefaultMaxResultBytes = 32 << 10
	DefaultRetries        = 5
	DefaultRetryWait      = time.Second
	DefaultMaxRetryWait   = time.Minute
	DefaultShowLines      = 6

	DefaultAnthropicModel = "claude-sonnet-4-5"
	DefaultOpenAIModel    = "gpt-4.1"
)

// Flags are the model provider's command-line flags, shared by
// `go run ./examples/agent` and `desk agent`.
type Flags struct {
	Provider, Model, BaseURL, APIKey, System string
	MaxTokens, MaxSteps, MaxResult, Retries  int
	RetryWait                                time.Duration
}

// AddFlags registers the provider's flags on fl.
func AddFlags(fl *flag.FlagSet) *Flags {
	f := &Flags{}
	fl.StringVar(&f.Provider, "provider", "", "anthropic or openai (default: anthropic when $ANTHROPIC_API_KEY is set, else openai when $OPENAI_API_KEY or $OPENAI_BASE_URL is)")
	fl.StringVar(&f.Model, "model", "", "the model (default: $ANTHROPIC_MODEL or $OPENAI_MODEL, else "+DefaultAnthropicModel+" or "+DefaultOpenAIModel+")")
	fl.StringVar(&f.BaseURL, "base-url", "", "the API's base URL (default: $ANTHROPIC_BASE_URL or $OPENAI_BASE_URL, else "+DefaultAnthropicURL+" or "+DefaultOpenAIURL+")")
	fl.StringVar(&f.APIKey, "api-key", "", "the API key (default: $ANTHROPIC_API_KEY or $OPENAI_API_KEY)")
	fl.StringVar(&f.System, "system", "", "instructions added to the system prompt")
	fl.IntVar(&f.MaxTokens, "max-tokens", 0, fmt.Sprintf("the most tokens of one model answer (default %d for anthropic; the server's for openai)", DefaultMaxTokens))
	fl.IntVar(&f.MaxSteps, "max-steps", DefaultMaxSteps, "the most model calls in one turn (each tool round is one)")
	fl.IntVar(&f.MaxResult, "max-result", DefaultMaxResultBytes, "the most bytes of one tool result sent to the model (head and tail kept)")
	fl.IntVar(&f.Retries, "retries", DefaultRetries, "retries of a model call that failed with a rate limit, overload or broken stream")
	fl.DurationVar(&f.RetryWait, "retry-wait", DefaultRetryWait, "the first retry's wait; it doubles each retry, up to "+DefaultMaxRetryWait.String()+" (or the server's Retry-After)")
	return f
}

// NewProvider makes the provider the flags and the environment (getenv)
// name.
func (f *Flags) NewProvider(getenv func(string) string) (Provider, error) {
	name := f.Provider
	if name == "" {
		switch {
		case getenv("ANTHROPIC_API_KEY") != "":
			name = "anthropic"
		case getenv("OPENAI_API_KEY") != "" || getenv("OPENAI_BASE_URL") != "":
			name = "openai"
		default:
			return nil, errors.New("no model provider: set ANTHROPIC_API_KEY, or OPENAI_API_KEY (and OPENAI_BASE_URL for another OpenAI-compatible server), or pass -provider and -api-key")
		}
	}
	pick := func(flagValue, env, def string) string {
		if flagValue != "" {
			return flagValue
		}
		if v := getenv(env); v != "" {
			return v
		}
		return def
	}
	hc := &http.Client{Transport: providerTransport()}
	switch name {
	case "anthropic":
		p := &Anthropic{
			BaseURL: pick(f.BaseURL, "ANTHROPIC_BASE_URL", DefaultAnthropicURL),
			APIKey:  pick(f.APIKey, "ANTHROPIC_API_KEY", ""),
			Model:   pick(f.Model, "ANTHROPIC_MODEL", DefaultAnthropicModel),
			HTTP:    hc,
		}
		if p.APIKey == "" {
			return nil, errors.New("anthropic: no API key: set ANTHROPIC_API_KEY or pass -api-key")
		}
		return p, nil
	case "openai":
		p := &OpenAI{
			BaseURL: pick(f.BaseURL, "OPENAI_BASE_URL", DefaultOpenAIURL),
			APIKey:  pick(f.APIKey, "OPENAI_API_KEY", ""),
			Model:   pick(f.Model, "OPENAI_MODEL", DefaultOpenAIModel),
			HTTP:    hc,
		}
		if p.APIKey == "" && p.BaseURL == DefaultOpenAIURL {
			return nil, errors.New("openai: no API key: set OPENAI_API_KEY or pass -api-key (a local server at OPENAI_BASE_URL may need none)")
		}
		return p, nil
	}
	return nil, fmt.Errorf("-provider %q: want anthropic or openai", name)
}

// Options are the loop's options from the flags (Config without its
// provider, client and workspace).
func (f *Flags) Options() Config {
	return Config{System: f.System, MaxTokens: f.MaxTokens, MaxSteps: f.MaxSteps, MaxResultBytes: f.MaxResult,
		Retries: f.Retries, RetryWait: f.RetryWait}
}

// providerTransport is the HTTP transport of model calls: the default one,
// with a bound on the wait for an answer's headers (a streamed answer's
// headers come at once; its body may take minutes).
func providerTransport() http.RoundTripper {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.ResponseHeaderTimeout = 2 * time.Minute
	return t
}
