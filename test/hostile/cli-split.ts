/**
 * How HAProxy's runtime CLI reads one command line: commands end at an unescaped `;`, words at
 * unescaped spaces or tabs, a backslash escapes the next character. Used to prove that a logged
 * runtime command is one command whose words are what the agent meant.
 */
export function cliCommands(line: string): string[][] {
  const commands: string[][] = [];
  let words: string[] = [];
  let word = '';
  let inWord = false;
  const endWord = () => {
    if (inWord) words.push(word);
    word = '';
    inWord = false;
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i] ?? '';
    if (c === '\\' && i + 1 < line.length) {
      word += line[++i] ?? '';
      inWord = true;
    } else if (c === ';') {
      endWord();
      commands.push(words);
      words = [];
    } else if (c === ' ' || c === '\t') {
      endWord();
    } else {
      word += c;
      inWord = true;
    }
  }
  endWord();
  if (words.length > 0) commands.push(words);
  return commands;
}
