package ui

import "charm.land/bubbles/v2/key"

// KeyMap is every key of the live screen. The help footer is generated from it, so
// what the help says is what the keys do.
type KeyMap struct {
	More     key.Binding // one user more
	Less     key.Binding // one user less
	Double   key.Binding
	Halve    key.Binding
	Ramp     key.Binding
	Refine   key.Binding // bisect the capacity between the last level that meets the criteria and the failing one
	Mode     key.Binding // users mode <-> rate mode
	Pause    key.Binding
	Resume   key.Binding // same key as Pause; enabled while paused
	All      key.Binding
	Clear    key.Binding
	Snapshot key.Binding
	Diag     key.Binding // every finding of the diagnosis, with its evidence
	Retry    key.Binding // load again an endpoint stopped for refused answers; enabled while one is
	ViewKeys
}

// ViewKeys are the keys the live screen and replay share: the focused endpoint, the
// theme, the help and quit.
type ViewKeys struct {
	Next  key.Binding
	Prev  key.Binding
	Theme key.Binding
	Help  key.Binding
	Quit  key.Binding
}

// defaultViewKeys returns the shared keys.
func defaultViewKeys() ViewKeys {
	return ViewKeys{
		Next:  key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next endpoint")),
		Prev:  key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "previous endpoint")),
		Theme: key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "next theme")),
		Help:  key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "keys")),
		Quit:  key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
	}
}

// DefaultKeyMap returns tpsmon's keys (issue 3, "Keys").
func DefaultKeyMap() KeyMap {
	return KeyMap{
		More:     key.NewBinding(key.WithKeys("+", "=", "up"), key.WithHelp("+/↑", "add user")),
		Less:     key.NewBinding(key.WithKeys("-", "_", "down"), key.WithHelp("-/↓", "drop user")),
		Double:   key.NewBinding(key.WithKeys("]"), key.WithHelp("]", "double users")),
		Halve:    key.NewBinding(key.WithKeys("["), key.WithHelp("[", "halve users")),
		Ramp:     key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "auto-ramp")),
		Refine:   key.NewBinding(key.WithKeys("b"), key.WithHelp("b", "refine capacity")),
		Mode:     key.NewBinding(key.WithKeys("m"), key.WithHelp("m", "rate mode")),
		Pause:    key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "pause")),
		Resume:   key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "resume"), key.WithDisabled()),
		All:      key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "load keys: all endpoints")),
		Clear:    key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "clear levels")),
		Snapshot: key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "snapshot")),
		Diag:     key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "diagnosis")),
		Retry:    key.NewBinding(key.WithKeys("R"), key.WithHelp("R", "retry endpoint"), key.WithDisabled()),
		ViewKeys: defaultViewKeys(),
	}
}

// ShortHelp is the one-line help.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.More, k.Less, k.Ramp, k.Pause, k.Resume, k.Retry, k.Help, k.Quit}
}

// FullHelp is the `?` help, in columns: load, view, program.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.More, k.Less, k.Double, k.Halve, k.Ramp, k.Refine, k.Mode, k.Pause, k.Resume, k.Retry},
		{k.Next, k.Prev, k.All, k.Clear, k.Diag, k.Theme},
		{k.Snapshot, k.Help, k.Quit},
	}
}

// setPaused swaps the pause and resume bindings on the `p` key.
func (k *KeyMap) setPaused(paused bool) {
	k.Pause.SetEnabled(!paused)
	k.Resume.SetEnabled(paused)
}

// setMulti enables the endpoint keys only when there is more than one endpoint.
func (k *KeyMap) setMulti(multi bool) {
	k.Next.SetEnabled(multi)
	k.Prev.SetEnabled(multi)
	k.All.SetEnabled(multi)
}
