// Package redact cuts passwords out of URLs and free text before they are
// printed or stored. It is a leaf: the database layer, the results store and
// the reports all use it without depending on one another.
package redact

import (
	"net/url"
	"regexp"
	"strings"
)

// String removes the password from a URL (also from a "password=" query
// parameter), for printing and storing. Anything that is not a URL on its
// own (a driver's error message, say) keeps its text, with the password
// cut out of any URL or password= setting inside it.
func String(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || strings.ContainsAny(raw, " \t\n") {
		return redactText(raw)
	}
	if u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
		}
	}
	q := u.Query()
	changed := false
	for k := range q {
		if strings.EqualFold(k, "password") || strings.EqualFold(k, "pass") {
			q.Set(k, "xxxxx")
			changed = true
		}
	}
	if changed {
		u.RawQuery = q.Encode()
	}
	return u.String()
}

var (
	urlPassword = regexp.MustCompile(`(://[^/:@\s]*):[^@\s]*@`)
	setPassword = regexp.MustCompile(`(?i)\b(password|pass)=([^&\s]*)`)
)

// redactText cuts passwords out of free text: "scheme://user:PASSWORD@"
// and "password=PASSWORD".
func redactText(s string) string {
	s = urlPassword.ReplaceAllString(s, "${1}:xxxxx@")
	return setPassword.ReplaceAllString(s, "${1}=xxxxx")
}
