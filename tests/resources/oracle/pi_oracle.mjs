// Pi's own loaders over a fixture tree (tests/resources/test_e2e_pi_oracle.py): prints one
// JSON object. argv: <pi package dir> <request JSON>. HOME and the agent dir come from the
// request (the caller sets HOME in the environment).
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const [packageDir, requestJson] = process.argv.slice(2);
const request = JSON.parse(requestJson);
const load = (rel) => import(pathToFileURL(join(packageDir, "dist", rel)).href);
const pi = await load("index.js");
const templates = await load("core/prompt-templates.js");

const loader = new pi.DefaultResourceLoader({ cwd: request.cwd, agentDir: request.agentDir });
await loader.reload();
const { skills, diagnostics: skillDiagnostics } = loader.getSkills();
const { prompts } = loader.getPrompts();

const out = {
  contextFiles: pi.loadProjectContextFiles({ cwd: request.cwd, agentDir: request.agentDir }),
  skills: skills.map((s) => ({
    name: s.name,
    description: s.description,
    path: s.filePath,
    baseDir: s.baseDir,
    modelInvocable: !s.disableModelInvocation,
  })),
  skillDiagnostics: skillDiagnostics.map((d) => ({ type: d.type, path: d.path })),
  skillsBlock: pi.formatSkillsForPrompt(skills),
  templates: prompts.map((t) => ({
    name: t.name,
    description: t.description,
    argumentHint: t.argumentHint ?? null,
    content: t.content,
    path: t.filePath,
  })),
  systemPrompt: loader.getSystemPrompt() ?? null,
  appendSystemPrompt: loader.getAppendSystemPrompt(),
  expansions: request.inputs.map((text) => templates.expandPromptTemplate(text, prompts)),
  substitutions: request.substitutions.map(([content, args]) => templates.substituteArgs(content, args)),
  argumentSplits: request.argumentTexts.map((text) => templates.parseCommandArgs(text)),
  frontmatter: request.frontmatterTexts.map((text) => {
    try {
      const { frontmatter, body } = pi.parseFrontmatter(text);
      return { frontmatter, body };
    } catch (error) {
      return { error: true };
    }
  }),
};
process.stdout.write(JSON.stringify(out));
