/** Request schemas of the keyword tool. */
import { Type } from '@sinclair/typebox';

/** A keyword as typed by a user: at least one visible character, at most 255. */
export const KeywordText = Type.String({ minLength: 1, maxLength: 255, pattern: '\\S' });
