package client

import "strconv"

// The Endpoint settings a FieldError can name. They are the keys of tpsmon's config
// file; a caller maps them to its own names (cmd to its flags).
const (
	FieldURL          = "url"
	FieldAPI          = "api"
	FieldModel        = "model"
	FieldMaxTokens    = "max_tokens"
	FieldPromptTokens = "prompt_tokens"
	FieldTimeout      = "timeout"
	FieldAPIKeyEnv    = "api_key_env"
)

// FieldError is an Endpoint setting that the client refuses. It names the setting by its
// field, never by a flag: the caller knows where the value came from (a flag, an
// environment variable, a line of a config file) and says so.
type FieldError struct {
	Field   string // one of the Field constants
	Value   string // the value as it may be shown (no password, no query); "" when not shown
	Problem string // what is wrong and what to write, without the value
	Suggest string // a corrected value, when one is known
}

// Error is the problem named by its field, e.g. `url "localhost:8000": want an http://
// or https:// URL; write e.g. http://localhost:8000`.
func (e *FieldError) Error() string {
	s := e.Field
	if e.Value != "" {
		s += " " + strconv.Quote(e.Value)
	}
	s += ": " + e.Problem
	if e.Suggest != "" {
		s += "; write e.g. " + e.Suggest
	}
	return s
}

// KeyEnvHint says what an API key's variable wants when a name was refused. What was
// given is never shown: it may be the key itself.
const KeyEnvHint = "want the name of an environment variable that holds the key, such as OPENAI_API_KEY (letters, digits and _); what was given is not one and is not shown, in case it is the key itself"

// CheckKeyEnv refuses a name that cannot be an environment variable's (a
// *FieldError for FieldAPIKeyEnv that does not show the name).
func CheckKeyEnv(name string) error {
	if !validEnvName(name) {
		return &FieldError{Field: FieldAPIKeyEnv, Problem: KeyEnvHint}
	}
	return nil
}

// validEnvName reports whether name can be an environment variable's name.
func validEnvName(name string) bool {
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return name != ""
}
