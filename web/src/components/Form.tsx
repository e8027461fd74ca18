/**
 * The pieces every form of the dashboard is made of, so that each screen states only its
 * fields and what submitting does: a form that never reloads the page, a text field bound to
 * a string state, the problem of the last failed action, and a delete button.
 */
import type { ComponentChildren, FormHTMLAttributes, InputHTMLAttributes, SelectHTMLAttributes } from 'preact';
import type { Problem } from '../api';
import { ProblemBox } from './States';

/** A form whose submit runs `onSubmit` instead of navigating (class "search" by default: one row). */
export function Form({
  onSubmit,
  class: className = 'search',
  children,
  ...rest
}: Omit<FormHTMLAttributes<HTMLFormElement>, 'onSubmit'> & { onSubmit: () => void; children: ComponentChildren }) {
  return (
    <form
      {...rest}
      class={className}
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit();
      }}
    >
      {children}
    </form>
  );
}

type InputProps = Omit<InputHTMLAttributes<HTMLInputElement>, 'value' | 'onInput'> & { value: string | number; onValue: (value: string) => void };

/**
 * An input whose every keystroke sets a string state (text, date, number, colour fields).
 * (The casts: Preact types input and select attributes as unions that Omit flattens.)
 */
export function Input({ onValue, ...rest }: InputProps) {
  return <input {...(rest as InputHTMLAttributes<HTMLInputElement>)} onInput={(e) => onValue((e.currentTarget as HTMLInputElement).value)} />;
}

/** A select whose choice sets a string state. */
export function Select({
  onValue,
  children,
  ...rest
}: Omit<SelectHTMLAttributes<HTMLSelectElement>, 'value' | 'onChange'> & { value: string; onValue: (value: string) => void; children: ComponentChildren }) {
  return (
    <select {...(rest as SelectHTMLAttributes<HTMLSelectElement>)} onChange={(e) => onValue((e.currentTarget as HTMLSelectElement).value)}>
      {children}
    </select>
  );
}

/** The problem of the first of these actions that failed, if any. */
export function ActionProblem({ actions }: { actions: { problem: Problem | null }[] }) {
  const problem = actions.find((a) => a.problem)?.problem;
  return problem ? <ProblemBox problem={problem} /> : null;
}

/** A delete button, disabled while its action runs; `confirmText` asks first. */
export function DeleteButton({
  label,
  busy,
  onDelete,
  confirmText,
  children = 'Delete',
}: {
  label?: string;
  busy: boolean;
  onDelete: () => void;
  confirmText?: string;
  children?: ComponentChildren;
}) {
  return (
    <button
      type="button"
      class="danger"
      aria-label={label}
      disabled={busy}
      onClick={() => {
        if (!confirmText || confirm(confirmText)) onDelete();
      }}
    >
      {children}
    </button>
  );
}
