package verify_test

import (
	"testing"

	"github.com/footnote-app/footnote/backend/corpus"
)

// Ordinary writing that shares a surface with chats and answers stays a
// document: a kept-out document is evidence silently lost.
func TestDetectKeepsLookalikeDocuments(t *testing.T) {
	d := footnoteDetector()
	for name, text := range map[string]string{
		"user: mentioned once":                   "# Deploying\n\nLog in as the deploy account.\nuser: deploy\nThen run the install script and restart the service. The service reads its settings at start.\n",
		"Markdown with numbered citations":       "# Related work\n\nRetrieval-augmented generation was introduced by Lewis et al. [1]. Dense retrieval [2] improved recall.\n\n## References\n\n[1] Lewis, P. et al. Retrieval-Augmented Generation. 2020.\n[2] Karpukhin, V. et al. Dense Passage Retrieval. 2020.\n",
		"meeting transcript with named speakers": "Weekly sync, 3 March\n\nAlice: The upload limit is still 20 MB.\nBob: Customers asked for 40 MB.\nAlice: We'll revisit after the storage migration.\nCarol: I'll draft the announcement.\nBob: Thanks, that settles it.\n",
		"interview with Q and A":                 "Q: How long did the survey take?\nA: About three weeks, mostly fieldwork.\nQ: And the response rate?\nA: Sixty-two percent.\n",
		"one marker in a manual":                 "Footnote writes citations as [#1] markers. Hover a marker to see the passage. The Library lists every indexed file.\n",
	} {
		if got := d.Detect(text); got.Source != corpus.SourceCorpus {
			t.Errorf("%s: detected as %+v", name, got)
		}
	}
}
