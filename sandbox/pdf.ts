/**
 * Small, valid PDF files for the sandbox's reports and documents: one page of text (a title and lines), and,
 * to reach a wanted size, an unreferenced binary stream object of bytes drawn from a seed. Different seeds give
 * different files; the same seed and text give the same bytes.
 */
import { createHash } from 'crypto';

export interface PdfContent {
	title: string;
	lines: readonly string[];
	/** Makes the padding bytes: what the document is about (case, case data, time). */
	seed: string;
	/** The file's size in bytes when larger than the text alone needs; 0 for the text alone. */
	size?: number;
}

/** Lines of text a page shows; longer documents are cut (the padding keeps their size). */
const MAX_LINES = 45;

/** A PDF string literal: ASCII only, `\`, `(` and `)` escaped. */
function pdfString(text: string): string {
	const ascii = text
		.normalize('NFKD')
		.replace(/[\u0300-\u036f]/g, '')
		.replace(/[^\x20-\x7e]/g, '?');
	return `(${ascii.replace(/[\\()]/g, (character) => `\\${character}`)})`;
}

function pageText(content: PdfContent): string {
	const lines = content.lines.slice(0, MAX_LINES);
	return [
		'BT',
		'/F1 16 Tf',
		'50 742 Td',
		`${pdfString(content.title)} Tj`,
		'/F1 10 Tf',
		'14 TL',
		'T*',
		...lines.map((line) => `${pdfString(line)} '`),
		'ET',
	].join('\n');
}

/** `length` bytes drawn from the seed (SHA-256 in counter mode). */
function paddingBytes(seed: string, length: number): Buffer {
	const blocks: Buffer[] = [];
	for (let counter = 0, size = 0; size < length; counter++, size += 32)
		blocks.push(createHash('sha256').update(`${seed}:${counter}`).digest());
	return Buffer.concat(blocks).subarray(0, length);
}

function assemble(content: PdfContent, padding: number): Buffer {
	const text = Buffer.from(pageText(content), 'latin1');
	const objects: Buffer[] = [
		Buffer.from('<< /Type /Catalog /Pages 2 0 R >>'),
		Buffer.from('<< /Type /Pages /Kids [3 0 R] /Count 1 >>'),
		Buffer.from(
			'<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>',
		),
		Buffer.from('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'),
		Buffer.concat([
			Buffer.from(`<< /Length ${text.length} >>\nstream\n`),
			text,
			Buffer.from('\nendstream'),
		]),
		Buffer.concat([
			Buffer.from(`<< /Length ${padding} >>\nstream\n`),
			paddingBytes(content.seed, padding),
			Buffer.from('\nendstream'),
		]),
		Buffer.from(
			`<< /Title ${pdfString(content.title)} /Producer (Background-check API sandbox) >>`,
		),
	];
	// The header's second line holds bytes above 127: the file is binary.
	const parts: Buffer[] = [Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
	let offset = parts[0].length;
	const offsets: number[] = [];
	objects.forEach((object, index) => {
		offsets.push(offset);
		const part = Buffer.concat([
			Buffer.from(`${index + 1} 0 obj\n`),
			object,
			Buffer.from('\nendobj\n'),
		]);
		parts.push(part);
		offset += part.length;
	});
	const xref = [
		'xref',
		`0 ${objects.length + 1}`,
		'0000000000 65535 f ',
		...offsets.map((at) => `${String(at).padStart(10, '0')} 00000 n `),
		'trailer',
		`<< /Size ${objects.length + 1} /Root 1 0 R /Info ${objects.length} 0 R >>`,
		'startxref',
		String(offset),
		'%%EOF',
		'',
	].join('\n');
	parts.push(Buffer.from(xref));
	return Buffer.concat(parts);
}

/** The PDF file of `content`: `size` bytes exactly when the text alone is smaller. */
export function buildPdf(content: PdfContent): Buffer {
	let padding = 0;
	let pdf = assemble(content, padding);
	const wanted = content.size ?? 0;
	// Two rounds: the padding's own length is written in the file, so its digits count too.
	for (
		let round = 0;
		round < 3 && pdf.length !== wanted && wanted > pdf.length - padding;
		round++
	) {
		padding = Math.max(0, padding + wanted - pdf.length);
		pdf = assemble(content, padding);
	}
	return pdf;
}
