package client

import (
	"regexp"
	"testing"
)

// TestHTTPMessagesNameNoFlag: the messages of failed requests (shown in the screen's
// status, bench's errors and results.json) name no command-line flag: the same run may
// come from a config file, and cmd names its own flags.
func TestHTTPMessagesNameNoFlag(t *testing.T) {
	flag := regexp.MustCompile(`--[a-z]`)
	for _, status := range []int{400, 401, 403, 404, 429, 500, 503} {
		for _, cred := range []credentials{credNone, credKey, credOther} {
			for _, server := range []string{"", "model not found"} {
				if m := httpMessage(status, server, cred); flag.MatchString(m) {
					t.Errorf("httpMessage(%d, %q, %d) names a flag: %s", status, server, cred, m)
				}
			}
		}
	}
}
