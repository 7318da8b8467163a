package settings

import (
	"errors"
	"fmt"

	"github.com/tpsmon/tpsmon/probe/client"
	"github.com/tpsmon/tpsmon/probe/engine"
)

// Error is a setting refused: what is wrong, where it was written, and what to write
// instead. Every error of Resolve is one; the command exits 2 with it.
type Error struct{ msg string }

func (e *Error) Error() string { return e.msg }

func errorf(format string, args ...any) error { return &Error{msg: fmt.Sprintf(format, args...)} }

// fieldUsage is err said at from: a *client.FieldError names its setting by field; the
// message names where the value was written instead, and how to write it there.
func fieldUsage(err error, from Origin) error {
	var fe *client.FieldError
	if !errors.As(err, &fe) {
		return errorf("%s: %v", from.Where, err)
	}
	msg := from.Where
	if fe.Value != "" {
		msg += fmt.Sprintf(" %q", fe.Value)
	}
	msg += ": " + fe.Problem
	if fe.Suggest != "" {
		msg += "; write e.g. " + from.WriteAs + fe.Suggest
	}
	return errorf("%s", msg)
}

// fieldFlags names the flag behind each setting that probe or the engine may refuse
// (client.FieldError.Field) once the plan is made.
var fieldFlags = map[string]string{
	client.FieldURL: "url", client.FieldAPI: "api", client.FieldModel: "model", client.FieldMaxTokens: "max-tokens",
	client.FieldPromptTokens: "prompt-tokens", client.FieldTimeout: "timeout", client.FieldAPIKeyEnv: "api-key-env",
	engine.FieldRamp: "ramp", engine.FieldHold: "hold", engine.FieldMaxHold: "max-hold",
	engine.FieldSettle: "settle", engine.FieldMaxDuration: "max-duration",
	engine.FieldServerMetrics: "server-metrics", engine.FieldShard: "shard", engine.FieldStartAt: "start-at",
}

// Refused is an error of probe or the engine about a setting of the plan (a
// *client.FieldError) said at the setting's flag; any other error as it is. Both are
// an *Error.
func Refused(err error) error {
	var fe *client.FieldError
	if errors.As(err, &fe) {
		if name, ok := fieldFlags[fe.Field]; ok {
			return fieldUsage(fe, flagOrigin(Flag, name))
		}
	}
	return errorf("%v", err)
}
