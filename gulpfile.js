const { src, dest, parallel } = require('gulp');

// tsc compiles the TypeScript; n8n also needs the icons and the codex files next to the compiled classes.
function copyIcons() {
	return src(['nodes/**/*.svg', 'credentials/**/*.svg'], { base: '.', encoding: false }).pipe(
		dest('dist'),
	);
}

function copyCodex() {
	return src('nodes/**/*.node.json', { base: '.' }).pipe(dest('dist'));
}

exports['build:assets'] = parallel(copyIcons, copyCodex);
