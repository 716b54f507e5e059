import { TOOL_SYMBOLS } from '../../src/fewshot/levenshtein';
import { parseProcess, type SolutionProcess } from '../../src/fewshot/library';
import { hqaTools } from '../../src/tools';
import { toolRegistry } from '../../src/tools/types';

const tools = toolRegistry(hqaTools());

/**
 * The replay check for an imported library (npm run fewshot:import). Its observations came from the live Wikipedia
 * and Wikidata when the authors recorded them, so they are not compared with our tools' output; what is checked is
 * what would mis-teach the model: the file parses in our protocol, every action names one of our tools, and that
 * tool accepts the Action Input as written. Returns one problem per line, empty when the file is sound.
 */
export const checkImportedFile = (file: string, text: string): { process?: SolutionProcess; problems: string[] } => {
  let process: SolutionProcess;
  try {
    process = parseProcess(text, file);
  } catch (err) {
    return { problems: [`${file}: ${err instanceof Error ? err.message : String(err)}`] };
  }
  const problems: string[] = [];
  process.steps.forEach((step, i) => {
    const where = `${file} step ${i + 1} (${step.action})`;
    const tool = tools.get(step.action);
    if (!tool || !(step.action in TOOL_SYMBOLS)) {
      problems.push(`${where}: not one of our tools`);
      return;
    }
    try {
      tool.fromText(step.actionInput);
    } catch (err) {
      problems.push(`${where}: the tool rejects the Action Input: ${err instanceof Error ? err.message : String(err)}`);
    }
  });
  if (!process.finalAnswer.trim()) problems.push(`${file}: empty final answer`);
  return { process, problems };
};
