/**
 * PostgreSQL text cannot hold U+0000 (a parameter with it fails the whole statement as an
 * encoding error), while SQLite stores it like any character, and a few inputs the API
 * accepts may carry one (an odd keyword, a malformed id in a path). This plugin of the
 * PostgreSQL state store puts U+FFFD, the replacement character, in its place in every
 * parameter, so both backends answer alike: an id with U+0000 finds nothing (no stored id
 * holds either character), and a key written and later looked up with one is the same key.
 */
import {
  OperationNodeTransformer,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type PrimitiveValueListNode,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
  type ValueNode,
} from 'kysely';

const NUL = '\u0000';
const REPLACEMENT = '\uFFFD';

function replaced(value: unknown): unknown {
  return typeof value === 'string' && value.includes(NUL) ? value.replaceAll(NUL, REPLACEMENT) : value;
}

class NulReplacer extends OperationNodeTransformer {
  protected override transformValue(node: ValueNode): ValueNode {
    const value = replaced(node.value);
    return value === node.value ? node : { ...node, value };
  }

  protected override transformPrimitiveValueList(node: PrimitiveValueListNode): PrimitiveValueListNode {
    return node.values.some((v) => replaced(v) !== v) ? { ...node, values: node.values.map(replaced) } : node;
  }
}

export class PostgresTextPlugin implements KyselyPlugin {
  private readonly replacer = new NulReplacer();

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return this.replacer.transformNode(args.node);
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}
