import {
  Hash,
  Tag,
  TypeGuards,
  Value,
  evalQuotedToken,
  type Context,
  type Emitter,
  type Liquid,
  type PartialScope,
  type TagToken,
  type Template,
  type TopLevelToken,
  type ValueToken,
} from 'liquidjs';
import { outputText } from './escaper.js';
import { checkedFileName } from './filters-context.js';
import { globMatch } from './glob.js';
import { TemplateValueError, innermostObject } from './provenance.js';
import type { Registration } from './fragments.js';
import { stateOf, type RenderState } from './state.js';

type Gen<T = unknown> = Generator<unknown, T, unknown>;

function hashArguments(hash: Hash): ValueToken[] {
  return Object.values(hash.hash).filter((t): t is ValueToken => TypeGuards.isValueToken(t));
}

/** `{% fail "message" %}`: aborts the render; attributed to the object being rendered, if any. */
export class FailTag extends Tag {
  private readonly message: Value;

  constructor(token: TagToken, remain: TopLevelToken[], liquid: Liquid) {
    super(token, remain, liquid);
    this.message = new Value(this.tokenizer.readFilteredValue(), liquid);
  }

  *render(ctx: Context): Gen<void> {
    const message = outputText(yield this.message.value(ctx, false));
    throw new TemplateValueError('fail', message, innermostObject(ctx));
  }

  *arguments(): Gen<void> {
    yield this.message;
  }
}

/**
 * Builds `{% render_glob "backends-*" key: value %}`: renders every snippet whose name matches,
 * in name order, sharing the caller's scope (like include) plus the given parameters.
 */
export function renderGlobTag(
  snippetNames: readonly string[],
): new (token: TagToken, remain: TopLevelToken[], liquid: Liquid) => Tag {
  const sorted = [...snippetNames].sort();
  return class RenderGlobTag extends Tag {
    private readonly pattern: string;
    private readonly names: readonly string[];
    private readonly hash: Hash;
    private readonly currentFile: string | undefined;

    constructor(token: TagToken, remain: TopLevelToken[], liquid: Liquid) {
      super(token, remain, liquid);
      const quoted = this.tokenizer.readValue();
      if (!TypeGuards.isQuotedToken(quoted)) {
        throw new Error('render_glob needs a quoted glob, e.g. {% render_glob "backends-*" %}');
      }
      this.pattern = evalQuotedToken(quoted);
      this.names = sorted.filter((n) => globMatch(n, this.pattern));
      this.tokenizer.skipBlank();
      if (this.tokenizer.peek() === ',') this.tokenizer.advance();
      this.hash = new Hash(this.tokenizer, liquid.options.keyValueSeparator);
      this.currentFile = token.file;
    }

    *render(ctx: Context, emitter: Emitter): Gen<void> {
      const scope = (yield this.hash.render(ctx)) as Record<string, unknown>;
      for (const name of this.names) {
        const templates = (yield this.liquid._parsePartialFile(
          name,
          ctx.sync,
          this.currentFile,
        )) as Template[];
        ctx.push(scope);
        try {
          yield this.liquid.renderer.renderTemplates(templates, ctx, emitter);
        } finally {
          ctx.pop();
        }
      }
    }

    *children(partials: boolean, sync: boolean): Gen<Template[]> {
      if (!partials) return [];
      const all: Template[] = [];
      for (const name of this.names) {
        all.push(
          ...((yield this.liquid._parsePartialFile(name, sync, this.currentFile)) as Template[]),
        );
      }
      return all;
    }

    partialScope(): PartialScope {
      return {
        name: `render_glob:${this.pattern}`,
        isolated: false,
        scope: Object.keys(this.hash.hash),
      };
    }

    *arguments(): Gen<void> {
      yield* hashArguments(this.hash);
    }
  };
}

type Registry = 'certificates' | 'crtLists' | 'generalFiles';

/** Stores a registration (already checked) and lets the fragments being rendered record it. */
export function registerInto(state: RenderState, registration: Registration): void {
  state[registration.registry].set(registration.name, registration.content);
  state.fragments?.registered(registration);
}

function joinPem(content: string, key: string | undefined): string {
  if (key === undefined || key === '') return content;
  return content.endsWith('\n') || content === '' ? content + key : `${content}\n${key}`;
}

/**
 * Builds `{% register_certificate name: n, content: crt, key: k %}` and
 * `{% register_crt_list name: n, content: text %}` and `{% register_file name: n, content: text %}`:
 * one name, one content; a different second
 * registration of the same name is an error.
 */
export function registerTag(
  tagName: string,
  registry: Registry,
): new (token: TagToken, remain: TopLevelToken[], liquid: Liquid) => Tag {
  return class RegisterTag extends Tag {
    private readonly hash: Hash;

    constructor(token: TagToken, remain: TopLevelToken[], liquid: Liquid) {
      super(token, remain, liquid);
      this.hash = new Hash(this.tokenizer, liquid.options.keyValueSeparator);
      if (!this.hash.hash['name'] || !this.hash.hash['content']) {
        throw new Error(`${tagName} needs name: and content:`);
      }
    }

    *render(ctx: Context): Gen<void> {
      const args = (yield this.hash.render(ctx)) as Record<string, unknown>;
      const name = checkedFileName(ctx, tagName, args['name']);
      const key = args['key'] === undefined ? undefined : outputText(args['key']);
      const content = joinPem(outputText(args['content']), key);
      const state = stateOf(ctx);
      const previous = state[registry].get(name);
      if (previous !== undefined && previous !== content) {
        throw new TemplateValueError(
          'registration-conflict',
          `${tagName}: ${name} is already registered with different content`,
          innermostObject(ctx),
        );
      }
      registerInto(state, { registry, name, content });
    }

    *arguments(): Gen<void> {
      yield* hashArguments(this.hash);
    }
  };
}
