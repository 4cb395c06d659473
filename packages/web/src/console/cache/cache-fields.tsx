import { NumberInput, TextInput } from '@mantine/core';

export interface FieldProps {
  name: string;
  label: string;
  error?: string | undefined;
}

/** A number field that hands back numbers only (an emptied field counts as 0). */
export function CacheNumberField({
  value,
  onChange,
  ...props
}: FieldProps & {
  value: number;
  onChange: (value: number) => void;
  min?: number;
  decimalScale?: number;
}) {
  return (
    <NumberInput
      {...props}
      value={value}
      onChange={(next) => onChange(typeof next === 'number' ? next : Number(next) || 0)}
    />
  );
}

export function CacheTextField({
  value,
  onChange,
  ...props
}: FieldProps & { value: string; onChange: (value: string) => void; description?: string }) {
  return <TextInput {...props} value={value} onChange={(event) => onChange(event.currentTarget.value)} />;
}
