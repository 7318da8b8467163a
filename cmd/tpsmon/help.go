package main

import "github.com/spf13/cobra"

// usageTemplate is cobra's usage template with the examples moved to the end, where
// a reader who skimmed the flags finds lines to copy.
const usageTemplate = `Usage:{{if .Runnable}}
  {{.UseLine}}{{end}}{{if .HasAvailableSubCommands}}
  {{.CommandPath}} [command]{{end}}{{if gt (len .Aliases) 0}}

Aliases:
  {{.NameAndAliases}}{{end}}{{if .HasAvailableSubCommands}}

Available Commands:{{range .Commands}}{{if (or .IsAvailableCommand (eq .Name "help"))}}
  {{rpad .Name .NamePadding }} {{.Short}}{{end}}{{end}}{{end}}{{if .HasAvailableLocalFlags}}

Flags:
{{.LocalFlags.FlagUsages | trimTrailingWhitespaces}}{{end}}{{if .HasAvailableInheritedFlags}}

Global Flags:
{{.InheritedFlags.FlagUsages | trimTrailingWhitespaces}}{{end}}{{if .HasAvailableSubCommands}}

Use "{{.CommandPath}} [command] --help" for more information about a command.{{end}}{{if .HasExample}}

Examples:
{{.Example}}{{end}}
`

// completionExamples are the examples of tpsmon completion and of each shell's
// command (cobra adds them; their help says more about each shell).
var completionExamples = map[string]string{
	"completion": `  source <(tpsmon completion bash)                  # bash, this shell
  tpsmon completion zsh > "${fpath[1]}/_tpsmon"      # zsh, every new shell`,
	"bash": `  source <(tpsmon completion bash)                  # this shell (needs the bash-completion package)
  tpsmon completion bash > /etc/bash_completion.d/tpsmon   # every new shell`,
	"zsh":        `  tpsmon completion zsh > "${fpath[1]}/_tpsmon"`,
	"fish":       `  tpsmon completion fish > ~/.config/fish/completions/tpsmon.fish`,
	"powershell": `  tpsmon completion powershell | Out-String | Invoke-Expression`,
}

// setHelp makes every command's help end with its examples, and adds cobra's
// completion command now (instead of when the program runs) to give it examples.
func setHelp(root *cobra.Command) {
	root.SetUsageTemplate(usageTemplate)
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() != "completion" {
			continue
		}
		c.Example = completionExamples[c.Name()]
		for _, sh := range c.Commands() {
			sh.Example = completionExamples[sh.Name()]
		}
	}
}
