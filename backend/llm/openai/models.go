package openai

import "strings"

// listedAs reports whether a model the server lists under id is the model
// the user named. Servers match names their own way; Ollama (also behind
// /v1) lists every model with its tag and treats an untagged name as
// ":latest", so "tiny" is the listed "tiny:latest". Other servers (LM
// Studio, llama.cpp, vLLM) list the exact names they accept.
func listedAs(id, name string) bool {
	if id == name {
		return true
	}
	return name != "" && !strings.Contains(name, ":") && id == name+":latest"
}
